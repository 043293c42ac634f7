//! The files a `bash` command line writes ([`policy_common::writes`]), and where they really
//! lead ([`policy_common::place`]): through `cd`, `pushd` and subshells, `~` and expansions, and
//! symlinks inside the workspace.

use policy_common::commands::Analysis;
use policy_common::place::{Place, Places};
use policy_common::writes::write_targets;

/// A path a command writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// As typed.
    pub raw: String,
    /// Where it may lead.
    pub place: Place,
    /// The command, for the block reason.
    pub command: String,
}

/// Every file the line obviously writes, judged from `workspace`.
pub fn write_targets_of(line: &str, analysis: &Analysis, workspace: &str) -> Vec<Target> {
    let places = Places::new(line, analysis, workspace);
    write_targets(analysis)
        .into_iter()
        .map(|target| Target {
            place: places.place(&target.word),
            raw: target.word.text,
            command: target.command,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use policy_common::commands::analyze;

    fn targets(line: &str) -> Vec<Place> {
        let analysis = analyze(line).expect("parse");
        write_targets_of(line, &analysis, "/ws")
            .into_iter()
            .map(|t| t.place)
            .collect()
    }

    fn known(paths: &[&str]) -> Place {
        Place::Known(paths.iter().map(|p| p.to_string()).collect())
    }

    #[test]
    fn finds_obvious_writes() {
        assert_eq!(targets("echo KEY=1 > .env"), vec![known(&["/ws/.env"])]);
        assert_eq!(
            targets("cd sub && touch x"),
            vec![known(&["/ws/x", "/ws/sub/x"])]
        );
        assert_eq!(
            targets("sudo tee /etc/hosts < x"),
            vec![known(&["/etc/hosts"])]
        );
        assert_eq!(targets("bash -c 'rm .env'"), vec![known(&["/ws/.env"])]);
    }

    #[test]
    fn unknowns_stay_unknown() {
        assert!(matches!(targets("rm $FILE")[0], Place::Unknown(_)));
        assert!(matches!(
            targets("cd ~ && touch .env")[0],
            Place::Unknown(_)
        ));
        assert!(targets("cargo update").is_empty());
    }
}
