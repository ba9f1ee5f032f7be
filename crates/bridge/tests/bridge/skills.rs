//! Two servers' skills through the bridge (SEP-2640): listed as the
//! bridge's own under `skill://SERVER/PATH` (the skill's name still the
//! segment before SKILL.md), got, read and verified by the caller against
//! the digests and sizes the servers promised.

use workbench_bridge::policy::Policy;

use super::{bridge, connect, modes, workbench};

#[tokio::test]
async fn every_servers_skills_are_the_bridges_own_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[]), ("beta", &[])]).await;
    let (_bridge, listening) = bridge(&wb, Policy::default()).await;
    let (_, mode) = modes().into_iter().last().unwrap();
    let caller = connect(&listening.url(), mode).await;
    let peer = caller.client.peer();
    let skills = peer.list_all_skills().await.unwrap();
    let mut uris: Vec<String> = skills.iter().map(|s| s.uri.clone()).collect();
    uris.sort();
    assert_eq!(
        uris,
        [
            "skill://alpha/pdf-processing/SKILL.md",
            "skill://alpha/release-notes/SKILL.md",
            "skill://beta/pdf-processing/SKILL.md",
            "skill://beta/release-notes/SKILL.md",
        ]
    );
    let pdf = skills
        .iter()
        .find(|s| s.uri == "skill://beta/pdf-processing/SKILL.md")
        .unwrap();
    assert_eq!(pdf.name(), "pdf-processing");
    let got = peer
        .get_skill(rmcp::model::GetSkillRequestParams::new(pdf.uri.clone()))
        .await
        .unwrap();
    assert_eq!(got.skill.uri, pdf.uri);
    // Each file read through the bridge is what beta promised.
    let rmcp::model::SkillResources::Files(files) = &pdf.resources else {
        panic!("the demo's skill lists its files");
    };
    assert_eq!(files.len(), 2);
    for f in files {
        assert!(
            f.uri.starts_with("skill://beta/pdf-processing/"),
            "{}",
            f.uri
        );
        let read = peer
            .read_resource(rmcp::model::ReadResourceRequestParams::new(f.uri.clone()))
            .await
            .unwrap();
        let bytes = match &read.contents[0] {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => {
                text.as_bytes().to_vec()
            }
            other => panic!("text expected: {other:?}"),
        };
        f.verify(&bytes).unwrap();
    }
    let dir_listing = peer
        .read_resource_directory(rmcp::model::ReadResourceDirectoryRequestParams::new(
            "skill://alpha/pdf-processing",
        ))
        .await
        .unwrap();
    let children: Vec<&str> = dir_listing
        .resources
        .iter()
        .map(|r| r.uri.as_str())
        .collect();
    assert!(
        children.contains(&"skill://alpha/pdf-processing/references"),
        "{children:?}"
    );
}
