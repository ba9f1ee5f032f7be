//! The window's remembered place made to fit the screen it opens on.

use mcp_workbench_lib::window_state::{Area, Saved, fit};

#[test]
fn a_window_saved_on_a_larger_screen_fits_the_smaller_one() {
    let saved = Saved {
        width: 1600.0,
        height: 1000.0,
        x: 300.0,
        y: 200.0,
        maximized: false,
    };
    let small = Area {
        x: 0.0,
        y: 27.0,
        width: 1280.0,
        height: 773.0,
    };
    let f = fit(saved, small);
    assert_eq!((f.width, f.height, f.x, f.y), (1280.0, 773.0, 0.0, 27.0));
    // One that fits stays where it was; one past an edge comes back.
    let ok = fit(
        Saved {
            width: 800.0,
            height: 600.0,
            x: 100.0,
            y: 100.0,
            ..saved
        },
        small,
    );
    assert_eq!((ok.x, ok.y, ok.width), (100.0, 100.0, 800.0));
    let off = fit(
        Saved {
            width: 800.0,
            height: 600.0,
            x: 1200.0,
            y: -50.0,
            ..saved
        },
        small,
    );
    assert_eq!((off.x, off.y), (480.0, 27.0));
}
