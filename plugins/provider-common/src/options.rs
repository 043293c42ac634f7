//! The request's `options`: compat flags from the user's config (`[providers.<id>] options`).
//! A flag of the wrong type is refused with its name rather than silently ignored.

use serde_json::{Map, Value};
use tack_sdk::{ErrorKind, ProviderError};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options(Map<String, Value>);

impl Options {
    /// Parses the options object; empty text or `null` means no options.
    pub fn parse(json: &str) -> Result<Self, ProviderError> {
        if json.trim().is_empty() {
            return Ok(Self::default());
        }
        match serde_json::from_str::<Value>(json) {
            Ok(Value::Object(map)) => Ok(Self(map)),
            Ok(Value::Null) => Ok(Self::default()),
            Ok(other) => Err(invalid(format!(
                "provider options must be an object, not {other}"
            ))),
            Err(e) => Err(invalid(format!("provider options are not JSON: {e}"))),
        }
    }

    pub fn bool(&self, key: &str) -> Result<Option<bool>, ProviderError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(invalid(format!(
                "provider option `{key}` must be true or false, not {other}"
            ))),
        }
    }

    pub fn string(&self, key: &str) -> Result<Option<&str>, ProviderError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(invalid(format!(
                "provider option `{key}` must be a string, not {other}"
            ))),
        }
    }

    /// A string option that must be one of `allowed`.
    pub fn choice(
        &self,
        key: &str,
        allowed: &[&'static str],
    ) -> Result<Option<&'static str>, ProviderError> {
        let Some(value) = self.string(key)? else {
            return Ok(None);
        };
        allowed
            .iter()
            .find(|choice| **choice == value)
            .copied()
            .map(Some)
            .ok_or_else(|| {
                invalid(format!(
                    "provider option `{key}` must be one of {}, not \"{value}\"",
                    allowed.join(", ")
                ))
            })
    }
}

impl Options {
    /// The string `name` maps to in the object option `key` (`deployments = { gpt-5 = "prod" }`).
    pub fn string_in(&self, key: &str, name: &str) -> Result<Option<&str>, ProviderError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => match map.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(other) => Err(invalid(format!(
                    "provider option `{key}.{name}` must be a string, not {other}"
                ))),
            },
            Some(other) => Err(invalid(format!(
                "provider option `{key}` must be a table of names, not {other}"
            ))),
        }
    }
}

fn invalid(message: String) -> ProviderError {
    ProviderError::new(ErrorKind::InvalidRequest, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_access_names_the_bad_flag() {
        let options = Options::parse(r#"{"a": true, "b": "x", "c": 3}"#).unwrap();
        assert_eq!(options.bool("a").unwrap(), Some(true));
        assert_eq!(options.bool("missing").unwrap(), None);
        assert_eq!(options.string("b").unwrap(), Some("x"));
        assert_eq!(options.choice("b", &["x", "y"]).unwrap(), Some("x"));
        let err = options.choice("b", &["y"]).unwrap_err();
        assert!(err.message.contains("`b`"), "{}", err.message);
        let err = options.bool("c").unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidRequest);
        assert!(err.message.contains("`c`"), "{}", err.message);
        assert_eq!(Options::parse("").unwrap(), Options::default());
        assert_eq!(Options::parse("null").unwrap(), Options::default());
        assert!(Options::parse("[1]").is_err());
        let options = Options::parse(r#"{"d": {"gpt-5": "prod", "bad": 1}, "e": 2}"#).unwrap();
        assert_eq!(options.string_in("d", "gpt-5").unwrap(), Some("prod"));
        assert_eq!(options.string_in("d", "other").unwrap(), None);
        assert!(options.string_in("d", "bad").is_err());
        assert!(options.string_in("e", "x").is_err());
    }
}
