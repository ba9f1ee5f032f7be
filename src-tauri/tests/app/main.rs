//! The desktop app's own tests, in one binary linking its library once
//! (the library builds no unit tests of its own: `[lib] test = false`, so
//! its files are not compiled a second time for them).

mod bindings;
mod launch;
mod startup;
mod window;
mod wire;
