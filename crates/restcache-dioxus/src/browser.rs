//! The page's events that concern the cache (wasm32 only): focus and visibility refetch stale
//! reads, and the network state pauses or resumes polling.

use restcache::Controller;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{EventTarget, VisibilityState};

/// One registered listener: where, for which event, and the closure the page calls.
type Listener = (EventTarget, &'static str, Closure<dyn FnMut()>);

/// The listeners one provider registered; dropping it removes them.
pub(crate) struct Listeners {
    registered: Vec<Listener>,
}

impl Listeners {
    /// Registers, on the window and its document, the listeners that keep `ctrl` in step with
    /// the page, and tells `ctrl` whether the browser is online now. Outside a window (a worker,
    /// say), registers nothing.
    pub(crate) fn register(ctrl: &Controller) -> Listeners {
        let mut listeners = Listeners { registered: Vec::new() };
        let Some(window) = web_sys::window() else {
            return listeners;
        };
        let online = {
            let navigator = window.navigator();
            move || navigator.on_line()
        };
        ctrl.set_online(online());
        let c = ctrl.clone();
        listeners.add(&window, "focus", move || c.refetch_stale());
        for event in ["online", "offline"] {
            let (c, online) = (ctrl.clone(), online.clone());
            listeners.add(&window, event, move || c.set_online(online()));
        }
        if let Some(document) = window.document() {
            let c = ctrl.clone();
            let page = document.clone();
            listeners.add(&document, "visibilitychange", move || {
                if page.visibility_state() == VisibilityState::Visible {
                    c.refetch_stale();
                }
            });
        }
        listeners
    }

    fn add(&mut self, target: &EventTarget, event: &'static str, f: impl FnMut() + 'static) {
        let closure = Closure::<dyn FnMut()>::new(f);
        // Adding a listener fails only for a target that is not a real EventTarget.
        if target
            .add_event_listener_with_callback(event, closure.as_ref().unchecked_ref())
            .is_ok()
        {
            self.registered.push((target.clone(), event, closure));
        }
    }
}

impl Drop for Listeners {
    fn drop(&mut self) {
        for (target, event, closure) in &self.registered {
            // Removing a listener that is there cannot fail.
            let _ = target.remove_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        }
    }
}
