#!/usr/bin/env python3
"""When the X screen first shows the window's text, cheaply enough not to slow it.

Used by startup.bench.mjs: one process and one X connection for the whole
launch, a grab of the screen's top-left every 20 ms, instead of an ImageMagick
`import` process per grab (each took most of a core while the app started,
and the app's own set-up came 100-200 ms later with it running). Prints
"ready" once connected, then the wall-clock time (ms since the epoch) of the
first grab whose region holds many colours (anti-aliased glyphs; an unmapped
screen or a blank window has a handful), and exits. Exits 2 without an X
display or libX11, 3 after `timeout` seconds with no text.

usage: onscreen.py [width height [timeout]]
"""

import ctypes
import ctypes.util
import sys
import time

Z_PIXMAP = 2
ALL_PLANES = ctypes.c_ulong(~0).value
MANY_COLOURS = 64


class XImage(ctypes.Structure):
    # The leading fields of Xlib's XImage (the rest is not read).
    _fields_ = [
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("xoffset", ctypes.c_int),
        ("format", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("byte_order", ctypes.c_int),
        ("bitmap_unit", ctypes.c_int),
        ("bitmap_bit_order", ctypes.c_int),
        ("bitmap_pad", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("bytes_per_line", ctypes.c_int),
        ("bits_per_pixel", ctypes.c_int),
    ]


def main():
    width, height = (int(a) for a in (sys.argv[1:3] or (900, 400)))
    timeout = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    name = ctypes.util.find_library("X11")
    if not name:
        sys.exit(2)
    x11 = ctypes.CDLL(name)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XGetImage.restype = ctypes.POINTER(XImage)
    x11.XGetImage.argtypes = [
        ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
        ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int,
    ]
    x11.XFree.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        sys.exit(2)
    root = x11.XDefaultRootWindow(display)
    print("ready", flush=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        at = time.time()
        image = x11.XGetImage(display, root, 0, 0, width, height, ALL_PLANES, Z_PIXMAP)
        if image:
            img = image.contents
            if img.bits_per_pixel == 32:
                # Every third row and column: glyphs span several, and it is a ninth of the work.
                stride, base = img.bytes_per_line, img.data
                sample = b"".join(ctypes.string_at(base + r * stride, img.width * 4) for r in range(0, img.height, 3))
                colours = len(set(memoryview(sample).cast("I")[::3]))
            else:
                colours = 0
            x11.XFree(img.data)
            x11.XFree(image)
            if colours > MANY_COLOURS:
                print(round(at * 1000), flush=True)
                return
        time.sleep(0.02)
    sys.exit(3)


if __name__ == "__main__":
    main()
