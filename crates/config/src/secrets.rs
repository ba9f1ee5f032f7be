//! Secrets in the OS keychain: env values and headers marked secret, and the
//! answers to `${input:...}` prompts. The file holds `${secret:ID}`; the value
//! lives under (service, ID) in the keychain and never in a file or a log.
//!
//! On Linux the persistent store is the Secret Service (GNOME Keyring,
//! KWallet) over D-Bus; where none answers (a headless box, CI) the kernel's
//! per-user keyring (keyutils) is used, shared by the user's processes until
//! reboot. (Not the session keyring: in containers and under some login
//! managers the inherited one is not writable.)

use std::sync::OnceLock;

use keyring::Entry;

use crate::error::{Error, Result};

/// The keychain service of the app; tests pass their own namespace.
pub const APP_SERVICE: &str = "dev.mcpworkbench.app";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
/// Where the keychain keeps secrets.
pub enum Backend {
    /// D-Bus Secret Service: survives reboots.
    SecretService,
    /// The kernel's per-user keyring.
    KernelKeyring,
}

/// A namespace in the keychain.
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
    /// None: this session's store, asked at the first use (asking the
    /// Secret Service is a D-Bus round trip, maybe an activation: not on
    /// the window's start when nothing is read).
    store: Option<Backend>,
}

fn describe(e: keyring::Error) -> Error {
    Error::Secret(match e {
        keyring::Error::NoStorageAccess(inner) => format!("no access to the keychain ({inner})"),
        keyring::Error::PlatformFailure(inner) => format!("the keychain failed ({inner})"),
        other => other.to_string(),
    })
}

/// Which store this session has: the Secret Service if it answers.
fn detect() -> Backend {
    static STORE: OnceLock<Backend> = OnceLock::new();
    *STORE.get_or_init(|| {
        if let Ok(forced) = std::env::var("MCPWB_KEYCHAIN") {
            return match forced.as_str() {
                "keyutils" | "kernel" => Backend::KernelKeyring,
                _ => Backend::SecretService,
            };
        }
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return Backend::KernelKeyring;
        }
        let probe = keyring::secret_service::SsCredential::new_with_target(
            None,
            APP_SERVICE,
            "mcpwb-probe",
        )
        .map(|c| Entry::new_with_credential(Box::new(c)));
        match probe.map(|e| e.get_password()) {
            Ok(Ok(_)) | Ok(Err(keyring::Error::NoEntry)) => Backend::SecretService,
            _ => Backend::KernelKeyring,
        }
    })
}

impl Keychain {
    /// The app's namespace in this session's store (`MCPWB_KEYCHAIN_SERVICE`
    /// names another one: tests use a throwaway namespace).
    pub fn app() -> Keychain {
        // A test run by hand (outside `cargo xtask test`) never reaches the
        // app's own entries: a namespace of its process's.
        let service = std::env::var("MCPWB_KEYCHAIN_SERVICE").unwrap_or_else(|_| {
            match crate::app::test_scratch() {
                Some(_) => format!("mcpwb-test-{}", std::process::id()),
                None => APP_SERVICE.to_string(),
            }
        });
        Keychain {
            service,
            store: None,
        }
    }

    /// A keychain of `service`'s entries in `store`.
    pub fn new(service: &str, store: Backend) -> Keychain {
        Keychain {
            service: service.to_string(),
            store: Some(store),
        }
    }

    /// Where it keeps secrets.
    pub fn backend(&self) -> Backend {
        self.store.unwrap_or_else(detect)
    }

    fn entry(&self, id: &str) -> Result<Entry> {
        let credential =
            keyring::secret_service::SsCredential::new_with_target(None, &self.service, id)
                .map_err(describe)?;
        Ok(Entry::new_with_credential(Box::new(credential)))
    }

    fn kernel_name(&self, id: &str) -> String {
        format!("mcpwb:{}:{id}", self.service)
    }

    /// The secret `id` (`None`: there is none).
    pub fn get(&self, id: &str) -> Result<Option<String>> {
        if self.backend() == Backend::KernelKeyring {
            return kernel::get(&self.kernel_name(id));
        }
        match self.entry(id)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(describe(e)),
        }
    }

    /// Keep `value` as the secret `id`.
    pub fn set(&self, id: &str, value: &str) -> Result<()> {
        if self.backend() == Backend::KernelKeyring {
            return kernel::set(&self.kernel_name(id), value);
        }
        self.entry(id)?.set_password(value).map_err(describe)
    }

    /// The secret `id`, made by `make` and kept when there is none: one
    /// value however many processes ask at once (the window and `mcpwb
    /// serve` both making the bridge's token would each keep their own,
    /// and the keychain the last). The making holds the lock beside
    /// `lock`; a secret already there is read without it.
    pub fn get_or_make(
        &self,
        id: &str,
        lock: &std::path::Path,
        make: impl FnOnce() -> Result<String>,
    ) -> Result<String> {
        if let Some(v) = self.get(id)? {
            return Ok(v);
        }
        let _held = crate::files::lock_beside(lock);
        if let Some(v) = self.get(id)? {
            return Ok(v);
        }
        let v = make()?;
        self.set(id, &v)?;
        Ok(v)
    }

    /// Remove the entry; removing one that is not there is fine.
    pub fn delete(&self, id: &str) -> Result<()> {
        if self.backend() == Backend::KernelKeyring {
            return kernel::delete(&self.kernel_name(id));
        }
        match self.entry(id)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(describe(e)),
        }
    }
}

/// The kernel's per-user keyring.
mod kernel {
    use linux_keyutils::{KeyError, KeyRing, KeyRingIdentifier};

    use crate::error::{Error, Result};

    fn ring() -> Result<KeyRing> {
        KeyRing::from_special_id(KeyRingIdentifier::User, true)
            .map_err(|e| Error::Secret(format!("the kernel keyring is not available ({e:?})")))
    }

    fn failed(e: KeyError) -> Error {
        Error::Secret(format!("the kernel keyring failed ({e:?})"))
    }

    pub fn get(name: &str) -> Result<Option<String>> {
        match ring()?.search(name) {
            Ok(key) => {
                let bytes = key.read_to_vec().map_err(failed)?;
                String::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| Error::Secret("a stored value is not text".into()))
            }
            Err(KeyError::KeyDoesNotExist | KeyError::KeyRevoked | KeyError::KeyExpired) => {
                Ok(None)
            }
            Err(e) => Err(failed(e)),
        }
    }

    pub fn set(name: &str, value: &str) -> Result<()> {
        ring()?.add_key(name, value.as_bytes()).map_err(failed)?;
        Ok(())
    }

    pub fn delete(name: &str) -> Result<()> {
        match ring()?.search(name) {
            Ok(key) => key.invalidate().map_err(failed),
            Err(KeyError::KeyDoesNotExist | KeyError::KeyRevoked | KeyError::KeyExpired) => Ok(()),
            Err(e) => Err(failed(e)),
        }
    }
}

/// The keychain id of a server's secret env value or header:
/// `<server>/env/<KEY>` or `<server>/headers/<Name>` (an entry of the
/// user's file; see [`secret_id_for`] for a project's).
pub fn secret_id(server: &str, field: &str, key: &str) -> String {
    secret_id_for(super::Scope::User, None, server, field, key)
}

/// First segments of keychain ids the workbench keeps for itself
/// (`oauth/<owner>tokens`, `input/<owner><id>`, `bridge/token`, and
/// `@workbench/` for anything new) and a project's prefix: no entry's own
/// prefix may start with one.
const RESERVED: [&str; 4] = ["oauth", "input", "bridge", "@workbench"];

/// An entry name as the first segment of its ids, such that no name can
/// reach another's ids or the workbench's own: `/` and `%` are
/// percent-encoded (a name `oauth/github` would otherwise own GitHub's
/// tokens), and a name that is a reserved segment, looks like a project's
/// prefix or starts with `~` gets a `~` before it. Names of other kinds
/// (all real ones) are kept as they are, so existing ids still resolve.
pub(crate) fn segment(server: &str) -> String {
    let mut out = String::with_capacity(server.len());
    for c in server.chars() {
        match c {
            '/' => out.push_str("%2F"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    let reserved = RESERVED.iter().any(|r| out.eq_ignore_ascii_case(r))
        || out.starts_with("project-")
        || out.starts_with('~');
    if reserved { format!("~{out}") } else { out }
}

/// Where an entry's own secrets live: `<server>/` for the user's file,
/// `project-<hash of the folder>/<server>/` for a project's. An entry reads
/// only secrets under its own prefix (a project cannot name the user's
/// GitHub token, nor one server another's, nor any entry the workbench's own
/// ids: see [`segment`]).
pub fn owner_prefix(
    scope: super::Scope,
    workspace: Option<&std::path::Path>,
    server: &str,
) -> String {
    let server = segment(server);
    match scope {
        super::Scope::User => format!("{server}/"),
        super::Scope::Project => {
            let folder = workspace
                .map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()))
                .map(|w| w.display().to_string())
                .unwrap_or_default();
            let h = folder.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
            format!("project-{h:016x}/{server}/")
        }
    }
}

/// [`secret_id`] for an entry of `scope` (a project's secrets are its own).
pub fn secret_id_for(
    scope: super::Scope,
    workspace: Option<&std::path::Path>,
    server: &str,
    field: &str,
    key: &str,
) -> String {
    format!("{}{field}/{key}", owner_prefix(scope, workspace, server))
}

/// The text the file holds in place of a secret.
pub fn reference(id: &str) -> String {
    format!("${{secret:{id}}}")
}

/// Values never worth masking (the one masker's rule: [`workbench_mask::maskable`]).
pub use workbench_mask::maskable;

/// An entry brought from elsewhere (an import) with credentials written
/// out in it (`"env": {"GITHUB_TOKEN": "ghp_…"}`, `"headers":
/// {"Authorization": "Bearer …"}`): each one `store` keeps (in the keychain)
/// is replaced by the reference it returns, so our file holds none. A
/// value is a credential when its name says so (the masker's rule) and it
/// is not a reference already. Returns the names moved, as `env.KEY` or
/// `headers.NAME`.
pub fn keep_credentials(
    fields: &mut serde_json::Map<String, serde_json::Value>,
    mut store: impl FnMut(&str, &str, &str) -> std::result::Result<String, String>,
) -> std::result::Result<Vec<String>, String> {
    let mut moved = Vec::new();
    for (field, credential) in [
        ("env", workbench_mask::sounds_secret as fn(&str) -> bool),
        ("headers", workbench_mask::secret_header),
    ] {
        let Some(serde_json::Value::Object(map)) = fields.get_mut(field) else {
            continue;
        };
        for (key, value) in map.iter_mut() {
            let serde_json::Value::String(text) = value else {
                continue;
            };
            if text.contains("${") || !credential(key) || !maskable(text) {
                continue;
            }
            *value = serde_json::Value::String(store(field, key, text)?);
            moved.push(format!("{field}.{key}"));
        }
    }
    Ok(moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_written_out_are_kept_by_reference() {
        let mut fields = serde_json::json!({
            "command": "docker",
            "env": {
                "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefabcdefabcdef",
                "API_KEY": "${env:API_KEY}",
                "LOG_LEVEL": "debug",
                "SESSION_TIMEOUT": "30",
            },
            "headers": { "Authorization": "Bearer sk-1234567890", "X-Team": "core-platform" }
        })
        .as_object()
        .unwrap()
        .clone();
        let mut kept = Vec::new();
        let moved = keep_credentials(&mut fields, |field, key, value| {
            kept.push((field.to_string(), key.to_string(), value.to_string()));
            Ok(format!("${{secret:{field}/{key}}}"))
        })
        .unwrap();
        assert_eq!(
            moved,
            ["env.GITHUB_PERSONAL_ACCESS_TOKEN", "headers.Authorization"]
        );
        assert_eq!(
            kept,
            [
                (
                    "env".into(),
                    "GITHUB_PERSONAL_ACCESS_TOKEN".into(),
                    "ghp_abcdefabcdefabcdef".into()
                ),
                (
                    "headers".into(),
                    "Authorization".into(),
                    "Bearer sk-1234567890".into()
                ),
            ]
        );
        assert_eq!(
            fields["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
            "${secret:env/GITHUB_PERSONAL_ACCESS_TOKEN}"
        );
        // A reference stays; a value too short or common stays; others stay.
        assert_eq!(fields["env"]["API_KEY"], "${env:API_KEY}");
        assert_eq!(fields["env"]["SESSION_TIMEOUT"], "30");
        assert_eq!(fields["env"]["LOG_LEVEL"], "debug");
        assert_eq!(fields["headers"]["X-Team"], "core-platform");
        // A keychain that refuses: said, nothing half-moved is claimed.
        let mut again = serde_json::json!({ "env": { "TOKEN": "abcdefghijkl" } })
            .as_object()
            .unwrap()
            .clone();
        let refused = keep_credentials(&mut again, |_, _, _| Err("no keychain".into()));
        assert_eq!(refused, Err("no keychain".to_string()));
    }

    #[test]
    fn the_apps_keychain_asks_which_store_it_has_only_when_used() {
        // Made at the app's start: asking the Secret Service there is a D-Bus
        // round trip (maybe an activation) on the window's way to the screen.
        assert_eq!(Keychain::app().store, None);
        let kernel = Keychain::new("mcpwb-test", Backend::KernelKeyring);
        assert_eq!(kernel.backend(), Backend::KernelKeyring);
    }

    #[test]
    fn a_secret_round_trips_through_the_real_kernel_keyring() {
        let ns = format!("mcpwb-test-{}-{}", std::process::id(), line!());
        let kc = Keychain::new(&ns, Backend::KernelKeyring);
        let id = secret_id("demo", "env", "API_KEY");
        assert_eq!(kc.get(&id).unwrap(), None);
        kc.set(&id, "s3cr3t").unwrap();
        assert_eq!(kc.get(&id).unwrap().as_deref(), Some("s3cr3t"));
        // Another namespace does not see it.
        let other = Keychain::new(&format!("{ns}-other"), Backend::KernelKeyring);
        assert_eq!(other.get(&id).unwrap(), None);
        kc.delete(&id).unwrap();
        assert_eq!(kc.get(&id).unwrap(), None);
        kc.delete(&id).unwrap();
        assert_eq!(reference(&id), "${secret:demo/env/API_KEY}");
    }

    /// Needs a Secret Service: `cargo xtask test` runs it (with the workspace's
    /// feature set, so nothing is rebuilt) inside
    /// `dbus-run-session` with a throwaway gnome-keyring.
    #[test]
    fn a_secret_made_by_many_at_once_is_one_secret() {
        let ns = format!("mcpwb-test-{}-{}", std::process::id(), line!());
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("keychain");
        let id = "bridge/token";
        let namespace = ns.clone();
        let made = crate::tests::at_once(8, move |i| {
            Keychain::new(&namespace, Backend::KernelKeyring)
                .get_or_make(id, &lock, || Ok(format!("token-{i}")))
                .unwrap()
        });
        let kc = Keychain::new(&ns, Backend::KernelKeyring);
        let kept = kc.get(id).unwrap().expect("a secret was kept");
        assert!(made.iter().all(|m| *m == kept), "{made:?} against {kept}");
        kc.delete(id).unwrap();
    }

    #[test]
    #[ignore = "needs a Secret Service (run by cargo xtask test)"]
    fn a_secret_round_trips_through_a_real_secret_service() {
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "run inside dbus-run-session"
        );
        let ns = format!("mcpwb-test-ss-{}", std::process::id());
        let kc = Keychain::new(&ns, Backend::SecretService);
        let id = secret_id("demo", "headers", "Authorization");
        kc.delete(&id).unwrap();
        assert_eq!(kc.get(&id).unwrap(), None);
        kc.set(&id, "Bearer s3cr3t").unwrap();
        assert_eq!(kc.get(&id).unwrap().as_deref(), Some("Bearer s3cr3t"));
        kc.set(&id, "Bearer n3w").unwrap();
        assert_eq!(kc.get(&id).unwrap().as_deref(), Some("Bearer n3w"));
        kc.delete(&id).unwrap();
        assert_eq!(kc.get(&id).unwrap(), None);
    }
}
