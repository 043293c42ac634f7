//! A provider's model catalogue: the entries every provider registers the same way, and looking
//! a model up in it.

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

/// What tack registers of a model. Every model tack lists reads images.
pub struct Card {
    pub id: &'static str,
    pub name: &'static str,
    pub context_window: u32,
    pub max_output_tokens: u32,
    pub reasoning: bool,
    pub cost: ModelCost,
}

/// A catalogue's entry: its card, and whatever else the provider's requests need of the model.
pub trait Entry: Sync + 'static {
    fn card(&self) -> &Card;
}

impl Entry for Card {
    fn card(&self) -> &Card {
        self
    }
}

impl From<&Card> for ModelSpec {
    fn from(card: &Card) -> Self {
        let spec = ModelSpec::new(
            card.id,
            card.name,
            card.context_window,
            card.max_output_tokens,
        )
        .with_images()
        .with_cost(card.cost);
        if card.reasoning {
            spec.with_reasoning()
        } else {
            spec
        }
    }
}

/// The catalogue's entry for the model `id`, if it lists it.
pub fn find<E: Entry>(catalogue: &'static [E], id: &str) -> Option<&'static E> {
    catalogue.iter().find(|entry| entry.card().id == id)
}

/// A catalogue as registration entries.
pub fn specs<E: Entry>(catalogue: &[E]) -> Vec<ModelSpec> {
    catalogue.iter().map(|entry| entry.card().into()).collect()
}
