//! Preset URLs that name a part of the user's account (`https://api.cloudflare.com/client/v4/
//! accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1`): each `{VAR}` is the environment variable's value, as
//! Pi fills them in. A value must be one path segment's worth of letters, digits, `-` and `_`, so
//! it can never move the request to another host or path.

/// `template` with its placeholders filled from `var`; or what the user must set first.
pub fn fill(template: &str, var: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    let mut unset = Vec::new();
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|at| open + at) else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..close];
        match var(name).filter(|value| !value.is_empty()) {
            Some(value)
                if value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                out.push_str(&value)
            }
            Some(_) => return Err(format!("{name} may hold only letters, digits, - and _")),
            None => unset.push(name.to_string()),
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    match unset.is_empty() {
        true => Ok(out),
        false => Err(format!("set {}", unset.join(" and "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1";

    #[test]
    fn placeholders_are_filled_from_the_environment_and_checked() {
        let env = |value: &'static str| move |_: &str| Some(value.to_string());
        assert_eq!(
            fill(URL, env("abc-123")).as_deref(),
            Ok("https://api.cloudflare.com/client/v4/accounts/abc-123/ai/v1")
        );
        assert_eq!(
            fill(URL, |_| None).unwrap_err(),
            "set CLOUDFLARE_ACCOUNT_ID"
        );
        assert!(fill(URL, env("evil.example/x")).is_err());
        assert_eq!(
            fill("https://a/{A}/{B}", |_| None).unwrap_err(),
            "set A and B"
        );
        assert_eq!(
            fill("https://plain/v1", |_| None).as_deref(),
            Ok("https://plain/v1")
        );
    }
}
