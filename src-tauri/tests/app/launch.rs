//! The app's command line.

use std::ffi::OsString;
use std::path::PathBuf;

use mcp_workbench_lib::LaunchOptions;

fn parse(args: &[&str]) -> Result<LaunchOptions, String> {
    LaunchOptions::from_env(args.iter().map(OsString::from))
}

#[test]
fn config_flag_forms_are_accepted_and_made_absolute() {
    let a = parse(&["--config", "x/mcp.json"]).unwrap();
    assert!(a.config_path.is_absolute());
    assert!(a.config_path.ends_with("x/mcp.json"));
    assert_eq!(
        parse(&["--config=/a.json"]).unwrap().config_path,
        PathBuf::from("/a.json")
    );
    assert_eq!(
        parse(&["/b.json"]).unwrap().config_path,
        PathBuf::from("/b.json")
    );
}

#[test]
fn a_project_folder_is_taken_and_must_exist() {
    let dir = std::env::temp_dir();
    let a = parse(&["--config", "/a.json", "--project", dir.to_str().unwrap()]).unwrap();
    assert_eq!(a.project_dir.as_deref(), Some(dir.as_path()));
    let b = parse(&[&format!("--project={}", dir.display())]).unwrap();
    assert_eq!(b.project_dir.as_deref(), Some(dir.as_path()));
    let err = parse(&["--project", "/no/such/folder"]).unwrap_err();
    assert!(err.contains("/no/such/folder does not exist"), "{err}");
    assert!(
        parse(&["--project"])
            .unwrap_err()
            .contains("needs a folder")
    );
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    assert!(parse(&["--config"]).unwrap_err().contains("needs a path"));
    assert!(parse(&["--trust", "--config", "/a.json"]).unwrap().trust);
    assert!(!parse(&["--config", "/a.json"]).unwrap().trust);
    assert!(
        parse(&["--frobnicate"])
            .unwrap_err()
            .contains("--frobnicate")
    );
}
