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
pub enum Store {
    /// D-Bus Secret Service: survives reboots.
    SecretService,
    /// The kernel's per-user keyring.
    KernelKeyring,
}

/// A namespace in the keychain.
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
    store: Store,
}

fn describe(e: keyring::Error) -> Error {
    Error::Secret(match e {
        keyring::Error::NoStorageAccess(inner) => format!("no access to the keychain ({inner})"),
        keyring::Error::PlatformFailure(inner) => format!("the keychain failed ({inner})"),
        other => other.to_string(),
    })
}

/// Which store this session has: the Secret Service if it answers.
fn detect() -> Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    *STORE.get_or_init(|| {
        if let Ok(forced) = std::env::var("MCPWB_KEYCHAIN") {
            return match forced.as_str() {
                "keyutils" | "kernel" => Store::KernelKeyring,
                _ => Store::SecretService,
            };
        }
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return Store::KernelKeyring;
        }
        let probe = keyring::secret_service::SsCredential::new_with_target(
            None,
            APP_SERVICE,
            "mcpwb-probe",
        )
        .map(|c| Entry::new_with_credential(Box::new(c)));
        match probe.map(|e| e.get_password()) {
            Ok(Ok(_)) | Ok(Err(keyring::Error::NoEntry)) => Store::SecretService,
            _ => Store::KernelKeyring,
        }
    })
}

impl Keychain {
    /// The app's namespace in this session's store (`MCPWB_KEYCHAIN_SERVICE`
    /// names another one: tests use a throwaway namespace).
    pub fn app() -> Keychain {
        let service =
            std::env::var("MCPWB_KEYCHAIN_SERVICE").unwrap_or_else(|_| APP_SERVICE.to_string());
        Keychain::new(&service, detect())
    }

    pub fn new(service: &str, store: Store) -> Keychain {
        Keychain {
            service: service.to_string(),
            store,
        }
    }

    pub fn store(&self) -> Store {
        self.store
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

    pub fn get(&self, id: &str) -> Result<Option<String>> {
        if self.store == Store::KernelKeyring {
            return kernel::get(&self.kernel_name(id));
        }
        match self.entry(id)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(describe(e)),
        }
    }

    pub fn set(&self, id: &str, value: &str) -> Result<()> {
        if self.store == Store::KernelKeyring {
            return kernel::set(&self.kernel_name(id), value);
        }
        self.entry(id)?.set_password(value).map_err(describe)
    }

    /// Remove the entry; removing one that is not there is fine.
    pub fn delete(&self, id: &str) -> Result<()> {
        if self.store == Store::KernelKeyring {
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
/// `<server>/env/<KEY>` or `<server>/headers/<Name>`.
pub fn secret_id(server: &str, field: &str, key: &str) -> String {
    format!("{server}/{field}/{key}")
}

/// The text the file holds in place of a secret.
pub fn reference(id: &str) -> String {
    format!("${{secret:{id}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_round_trips_through_the_real_kernel_keyring() {
        let ns = format!("mcpwb-test-{}-{}", std::process::id(), line!());
        let kc = Keychain::new(&ns, Store::KernelKeyring);
        let id = secret_id("demo", "env", "API_KEY");
        assert_eq!(kc.get(&id).unwrap(), None);
        kc.set(&id, "s3cr3t").unwrap();
        assert_eq!(kc.get(&id).unwrap().as_deref(), Some("s3cr3t"));
        // Another namespace does not see it.
        let other = Keychain::new(&format!("{ns}-other"), Store::KernelKeyring);
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
    #[ignore = "needs a Secret Service (run by cargo xtask test)"]
    fn a_secret_round_trips_through_a_real_secret_service() {
        assert!(
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
            "run inside dbus-run-session"
        );
        let ns = format!("mcpwb-test-ss-{}", std::process::id());
        let kc = Keychain::new(&ns, Store::SecretService);
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
