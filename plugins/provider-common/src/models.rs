//! Registration entries for a provider's model catalogue.

use tack_sdk::{ModelCost, ModelSpec};

/// Prices per million tokens of an API that charges nothing extra for cache writes.
pub const fn cost(input: f64, output: f64, cache_read: f64) -> ModelCost {
    ModelCost {
        input,
        output,
        cache_read,
        cache_write: 0.0,
    }
}

/// A catalogue entry as registered: every model tack lists reads images.
pub fn spec(
    id: &str,
    name: &str,
    context_window: u32,
    max_output_tokens: u32,
    reasoning: bool,
    cost: ModelCost,
) -> ModelSpec {
    let spec = ModelSpec::new(id, name, context_window, max_output_tokens)
        .with_images()
        .with_cost(cost);
    if reasoning {
        spec.with_reasoning()
    } else {
        spec
    }
}

/// A catalogue as registration entries.
pub fn specs<'a, M: 'a>(catalogue: &'a [M]) -> Vec<ModelSpec>
where
    &'a M: Into<ModelSpec>,
{
    catalogue.iter().map(Into::into).collect()
}
