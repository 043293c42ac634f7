//! What the model and the user's messages get of skills, worded as Pi words it (so a model used
//! to one reads the other the same way).

use crate::discover::Skill;

/// The system prompt's list of skills the model may read; `None` when none is listed.
pub fn listing(skills: &[Skill]) -> Option<String> {
    let visible: Vec<&Skill> = skills.iter().filter(|s| !s.hidden).collect();
    if visible.is_empty() {
        return None;
    }
    let mut lines = vec![
        "The following skills provide specialized instructions for specific tasks.".to_string(),
        "Use the read tool to load a skill's file when the task matches its description.".into(),
        "When a skill file references a relative path, resolve it against the skill directory \
         (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands."
            .into(),
        String::new(),
        "<available_skills>".into(),
    ];
    for skill in visible {
        lines.push("  <skill>".into());
        lines.push(format!("    <name>{}</name>", escape(&skill.name)));
        lines.push(format!(
            "    <description>{}</description>",
            escape(&skill.description)
        ));
        lines.push(format!(
            "    <location>{}</location>",
            escape(&skill.file.display().to_string())
        ));
        lines.push("  </skill>".into());
    }
    lines.push("</available_skills>".into());
    Some(lines.join("\n"))
}

/// `/skill:<name> args` as the message the model gets: the skill's body, then the arguments.
pub fn expansion(skill: &Skill, body: &str, args: &str) -> String {
    let block = format!(
        "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
        skill.name,
        skill.file.display(),
        skill.dir.display(),
        body.trim()
    );
    if args.trim().is_empty() {
        block
    } else {
        format!("{block}\n\n{}", args.trim())
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn skill(name: &str, hidden: bool) -> Skill {
        Skill {
            name: name.into(),
            description: "Handles <PDF> & more".into(),
            file: PathBuf::from(format!("/s/{name}/SKILL.md")),
            dir: PathBuf::from(format!("/s/{name}")),
            scope: "user".into(),
            hidden,
            fields: Default::default(),
        }
    }

    #[test]
    fn lists_visible_skills_escaped() {
        let text = listing(&[skill("pdf", false), skill("secret", true)]).expect("listed");
        assert!(text.contains("<name>pdf</name>"), "{text}");
        assert!(text.contains("Handles &lt;PDF&gt; &amp; more"), "{text}");
        assert!(
            text.contains("<location>/s/pdf/SKILL.md</location>"),
            "{text}"
        );
        assert!(!text.contains("secret"), "{text}");
        assert!(listing(&[skill("secret", true)]).is_none());
    }

    #[test]
    fn expansion_puts_body_then_arguments() {
        let s = skill("pdf", false);
        assert_eq!(
            expansion(&s, "Do it.\n", " a.pdf "),
            "<skill name=\"pdf\" location=\"/s/pdf/SKILL.md\">\nReferences are relative to \
             /s/pdf.\n\nDo it.\n</skill>\n\na.pdf"
        );
        assert!(expansion(&s, "Do it.", "").ends_with("</skill>"));
    }
}
