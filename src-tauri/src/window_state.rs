//! The window's size, position and maximised state, remembered between runs
//! in the app's store (`window-state.json` in the app data folder).

use serde::{Deserialize, Serialize};
use tauri::{LogicalPosition, LogicalSize, Manager, Runtime, WebviewWindow, WindowEvent};
use tauri_plugin_store::StoreExt;

const STORE: &str = "window-state.json";
const KEY: &str = "main";

/// The window as it was left, in logical pixels.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Saved {
    pub width: f64,
    pub height: f64,
    pub x: f64,
    pub y: f64,
    pub maximized: bool,
}

fn current<R: Runtime>(w: &WebviewWindow<R>) -> Option<Saved> {
    let scale = w.scale_factor().ok()?;
    let size = w.inner_size().ok()?.to_logical::<f64>(scale);
    let pos = w.outer_position().ok()?.to_logical::<f64>(scale);
    Some(Saved {
        width: size.width,
        height: size.height,
        x: pos.x,
        y: pos.y,
        maximized: w.is_maximized().unwrap_or(false),
    })
}

/// A screen's work area, in logical pixels.
#[derive(Debug, Clone, Copy)]
pub struct Area {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// `saved` made to fit `area`: no larger than it, wholly on it.
pub fn fit(saved: Saved, area: Area) -> Saved {
    let width = saved.width.min(area.width);
    let height = saved.height.min(area.height);
    let x = saved.x.clamp(area.x, area.x + area.width - width);
    let y = saved.y.clamp(area.y, area.y + area.height - height);
    Saved {
        width,
        height,
        x,
        y,
        ..saved
    }
}

/// Put the window where it was, then keep what the user does to it.
pub fn follow<R: Runtime>(app: &tauri::AppHandle<R>) {
    let Some(window) = app.get_webview_window("main") else {
        return;
    };
    let Ok(store) = app.store(STORE) else {
        tracing::warn!("window state store unavailable; size not remembered");
        return;
    };
    if let Some(saved) = store
        .get(KEY)
        .and_then(|v| serde_json::from_value::<Saved>(v).ok())
        .filter(|s| s.width >= 400.0 && s.height >= 300.0)
    {
        // On the screen it opens on now (a smaller one than when it was
        // saved: the header's buttons were off its edge).
        let screen = window
            .current_monitor()
            .ok()
            .flatten()
            .or_else(|| window.primary_monitor().ok().flatten())
            .map(|m| {
                let scale = m.scale_factor();
                let area = m.work_area();
                let at = area.position.to_logical::<f64>(scale);
                let size = area.size.to_logical::<f64>(scale);
                Area {
                    x: at.x,
                    y: at.y,
                    width: size.width,
                    height: size.height,
                }
            });
        let saved = match screen {
            Some(area) => fit(saved, area),
            None => saved,
        };
        let _ = window.set_size(LogicalSize::new(saved.width, saved.height));
        let _ = window.set_position(LogicalPosition::new(saved.x, saved.y));
        if saved.maximized {
            let _ = window.maximize();
        }
    }
    let w = window.clone();
    window.on_window_event(move |event| {
        if matches!(
            event,
            WindowEvent::Resized(_) | WindowEvent::Moved(_) | WindowEvent::CloseRequested { .. }
        ) && let Some(now) = current(&w)
        {
            // Keep the last normal size while maximised.
            let previous = store
                .get(KEY)
                .and_then(|v| serde_json::from_value::<Saved>(v).ok());
            let keep = match (now.maximized, previous) {
                (true, Some(p)) => Saved {
                    maximized: true,
                    ..p
                },
                _ => now,
            };
            if let Ok(v) = serde_json::to_value(keep) {
                store.set(KEY, v);
            }
            if matches!(event, WindowEvent::CloseRequested { .. }) {
                let _ = store.save();
            }
        }
    });
}
