//! Google Vertex AI: Gemini through the user's Google Cloud project, reached as Pi reaches it.
//! With `GOOGLE_CLOUD_API_KEY` (environment or auth.json) the key goes in `x-goog-api-key` to
//! Vertex's global endpoint; without one, the host exchanges the user's Application Default
//! Credentials for access tokens (`tack_runtime::bridge::google_auth`), and the project and
//! location come from `GOOGLE_CLOUD_PROJECT` (or `GCLOUD_PROJECT`) and `GOOGLE_CLOUD_LOCATION`.
//! `base_url` under `[providers.google-vertex]` names another endpoint; the model's path
//! (`/models/<id>:streamGenerateContent`) follows it.

/// The preset's id, as Pi names the provider.
pub const ID: &str = "google-vertex";

const API_KEY_URL: &str = "https://aiplatform.googleapis.com/v1/publishers/google";

const NO_PROJECT: &str = "set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (with credentials \
     from `gcloud auth application-default login` or GOOGLE_APPLICATION_CREDENTIALS), or \
     GOOGLE_CLOUD_API_KEY";

/// Where the Vertex preset's requests go, from the URL the user's config gave it, if any,
/// whether an API key is set, and `var` (the environment); or what the user must set first.
pub fn base_url(
    configured_url: Option<&str>,
    api_key: bool,
    var: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let var = |name: &str| {
        var(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    if let Some(url) = configured_url {
        return Ok(url.to_string());
    }
    if api_key {
        return Ok(API_KEY_URL.into());
    }
    let project = var("GOOGLE_CLOUD_PROJECT").or_else(|| var("GCLOUD_PROJECT"));
    let location = var("GOOGLE_CLOUD_LOCATION");
    match (project, location) {
        (Some(project), Some(location)) => project_url(&project, &location),
        _ => Err(NO_PROJECT.into()),
    }
}

/// The project's publisher URL in `location` (`global` has no regional host).
fn project_url(project: &str, location: &str) -> Result<String, String> {
    let plain = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    };
    if !plain(project) || !plain(location) {
        return Err(format!(
            "GOOGLE_CLOUD_PROJECT ({project}) and GOOGLE_CLOUD_LOCATION ({location}) must be a \
             project id and a location name"
        ));
    }
    let host = match location {
        "global" => "aiplatform.googleapis.com".to_string(),
        region => format!("{region}-aiplatform.googleapis.com"),
    };
    Ok(format!(
        "https://{host}/v1/projects/{project}/locations/{location}/publishers/google"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars<'a>(set: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            set.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_url_comes_from_the_project_and_location_or_the_key() {
        let env = [
            ("GOOGLE_CLOUD_PROJECT", "my-proj"),
            ("GOOGLE_CLOUD_LOCATION", "us-central1"),
        ];
        assert_eq!(
            base_url(None, false, vars(&env)).as_deref(),
            Ok("https://us-central1-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-central1/publishers/google")
        );
        let global = [("GCLOUD_PROJECT", "p"), ("GOOGLE_CLOUD_LOCATION", "global")];
        assert_eq!(
            base_url(None, false, vars(&global)).as_deref(),
            Ok("https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google")
        );
        assert_eq!(base_url(None, true, vars(&[])).as_deref(), Ok(API_KEY_URL));
        assert!(base_url(None, false, vars(&[]))
            .unwrap_err()
            .contains("GOOGLE_CLOUD_PROJECT"));
        let odd = [
            ("GOOGLE_CLOUD_PROJECT", "a/b"),
            ("GOOGLE_CLOUD_LOCATION", "x"),
        ];
        assert!(base_url(None, false, vars(&odd)).is_err());
    }
}
