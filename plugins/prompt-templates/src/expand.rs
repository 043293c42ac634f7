//! Argument expansion, exactly as Pi's `substituteArgs` and `parseCommandArgs` do it, so a
//! template written for one expands the same in the other.

/// Splits arguments at spaces and tabs; `"…"` and `'…'` group words (the quotes are dropped).
pub fn parse_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == ' ' || c == '\t' => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// Fills `template`: `$1`…`$9` (and `$10`, …) with that argument or nothing, then `${@:N}` with
/// the arguments from the Nth and `${@:N:L}` with L of them, then `$ARGUMENTS` and `$@` with all
/// of them joined by spaces. Each pass runs over the previous one's result, as in Pi.
pub fn substitute(template: &str, args: &[String]) -> String {
    let positional = replace_each(template, |rest| {
        let digits = rest.strip_prefix('$')?;
        let len = digits.bytes().take_while(u8::is_ascii_digit).count();
        if len == 0 {
            return None;
        }
        let n = digits[..len].parse::<usize>().unwrap_or(usize::MAX);
        let value = n
            .checked_sub(1)
            .and_then(|i| args.get(i))
            .cloned()
            .unwrap_or_default();
        Some((1 + len, value))
    });
    let sliced = replace_each(&positional, |rest| {
        let inner = rest.strip_prefix("${@:")?;
        let start_len = inner.bytes().take_while(u8::is_ascii_digit).count();
        if start_len == 0 {
            return None;
        }
        let start = inner[..start_len].parse::<usize>().unwrap_or(usize::MAX);
        let after = &inner[start_len..];
        let (length, used) = match after.strip_prefix(':') {
            Some(tail) => {
                let n = tail.bytes().take_while(u8::is_ascii_digit).count();
                if n == 0 || !tail[n..].starts_with('}') {
                    return None;
                }
                (
                    Some(tail[..n].parse::<usize>().unwrap_or(usize::MAX)),
                    1 + n,
                )
            }
            None => (None, 0),
        };
        if !after[used..].starts_with('}') {
            return None;
        }
        // `${@:0}` means from the first, as in bash.
        let from = start.saturating_sub(1).min(args.len());
        let to = length.map_or(args.len(), |l| from.saturating_add(l).min(args.len()));
        Some((4 + start_len + used + 1, args[from..to].join(" ")))
    });
    let all = args.join(" ");
    sliced.replace("$ARGUMENTS", &all).replace("$@", &all)
}

/// Runs `at` at every position of `text`; where it returns `(length, replacement)`, that many
/// bytes are replaced and scanning goes on after them.
fn replace_each(text: &str, at: impl Fn(&str) -> Option<(usize, String)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if let Some((len, replacement)) = at(rest) {
            out.push_str(&replacement);
            i += len;
            continue;
        }
        let c = rest.chars().next().unwrap_or_default();
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        parse_args(text)
    }

    #[test]
    fn parses_quoted_arguments() {
        assert_eq!(args(r#"a "b c"  'd e' f"#), ["a", "b c", "d e", "f"]);
        assert!(args("   ").is_empty());
    }

    #[test]
    fn every_form_expands_like_pi() {
        let a = args("one two three four");
        assert_eq!(substitute("$1 and $2, $9.", &a), "one and two, .");
        assert_eq!(
            substitute("all: $@ | $ARGUMENTS", &a),
            "all: one two three four | one two three four"
        );
        assert_eq!(substitute("${@:2}", &a), "two three four");
        assert_eq!(substitute("${@:2:2}", &a), "two three");
        assert_eq!(substitute("${@:0}", &a), "one two three four");
        assert_eq!(substitute("${@:9}", &a), "");
        assert_eq!(substitute("$0|$10", &a), "|");
        assert_eq!(substitute("cost $ 5 ${x} $", &a), "cost $ 5 ${x} $");
        assert_eq!(substitute("${@:2", &a), "${@:2");
    }

    #[test]
    fn later_passes_see_earlier_values_as_pi_does() {
        // Pi replaces $1 first, then $@ over the result: an argument holding `$@` is expanded.
        assert_eq!(substitute("$1-$2", &args("$@ x")), "$@ x-x");
    }
}
