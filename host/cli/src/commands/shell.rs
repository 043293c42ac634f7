//! What a terminal user expects of a command-line tool beyond its own job: completions for their
//! shell, a man page, and "did you mean" for a mistyped subcommand instead of a paid model call.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::cli::Cli;

/// `tack completions <shell>`: the completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "tack", &mut out);
    std::io::stdout()
        .write_all(&out)
        .context("cannot write the completion script")?;
    Ok(ExitCode::SUCCESS)
}

/// `tack man`: the man page (roff) on stdout.
pub fn man_page() -> Result<ExitCode> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .context("cannot render the man page")?;
    std::io::stdout()
        .write_all(&out)
        .context("cannot write the man page")?;
    Ok(ExitCode::SUCCESS)
}

/// The subcommand a prompt's first word looks like a typo of, when the prompt came as separate
/// words (`tack instal x`), not quoted (`tack "instal x"`) or after `--` (`tack -- instal x`).
/// A one-word slip costs a model call otherwise, and the answer would be about something else.
pub fn mistyped_subcommand(prompt: &[String], raw_args: &[String]) -> Option<String> {
    let first = prompt.first()?;
    if first.is_empty() || first.chars().any(char::is_whitespace) || first.starts_with('/') {
        return None;
    }
    // After `--` every word is the prompt's, as the user asked.
    let dashes = raw_args.iter().position(|a| a == "--");
    let word = raw_args.iter().position(|a| a == first);
    if matches!((dashes, word), (Some(d), Some(w)) if d < w) {
        return None;
    }
    let typed = first.to_ascii_lowercase();
    let allowed = if typed.chars().count() <= 5 { 1 } else { 2 };
    Cli::command()
        .get_subcommands()
        .flat_map(|sub| {
            std::iter::once(sub.get_name().to_string())
                .chain(sub.get_all_aliases().map(str::to_string))
        })
        .map(|name| (strsim::damerau_levenshtein(&typed, &name), name))
        .filter(|(distance, _)| *distance > 0 && *distance <= allowed)
        .min()
        .map(|(_, name)| name)
}

/// The message for [`mistyped_subcommand`]'s answer.
pub fn did_you_mean(typed: &str, subcommand: &str) -> String {
    format!(
        "`{typed}` is not a command; did you mean `tack {subcommand}`?\n\
         To send it to the model as a prompt, quote it (`tack \"{typed} …\"`) or put `--` \
         before it (`tack -- {typed} …`)."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn a_near_miss_of_a_subcommand_is_caught_and_a_prompt_is_not() {
        let check = |prompt: &str| {
            let prompt = words(prompt);
            let mut raw = vec!["tack".to_string()];
            raw.extend(prompt.clone());
            mistyped_subcommand(&prompt, &raw)
        };
        assert_eq!(check("instal x").as_deref(), Some("install"));
        assert_eq!(check("modles").as_deref(), Some("models"));
        assert_eq!(check("sesions --all").as_deref(), Some("sessions"));
        assert_eq!(check("completion bash").as_deref(), Some("completions"));
        assert_eq!(
            check("test the parser"),
            None,
            "a short word needs a closer match"
        );
        assert_eq!(check("fix the build"), None);
        assert_eq!(check("/plan on"), None);
        let quoted = vec!["instal x".to_string()];
        assert_eq!(
            mistyped_subcommand(&quoted, &["tack".into(), "instal x".into()]),
            None
        );
        let prompt = words("instal x");
        let raw = words("tack -- instal x");
        assert_eq!(mistyped_subcommand(&prompt, &raw), None, "after --");
    }

    #[test]
    fn completions_and_the_man_page_render() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "tack", &mut out);
            let text = String::from_utf8(out).expect("utf-8");
            assert!(text.contains("install"), "{shell}: {text}");
        }
        let mut out = Vec::new();
        clap_mangen::Man::new(Cli::command())
            .render(&mut out)
            .expect("renders");
        assert!(String::from_utf8_lossy(&out).contains(".TH tack"));
    }
}
