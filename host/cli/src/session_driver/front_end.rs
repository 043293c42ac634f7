//! What every interactive front end works on: the command line it started with, the loaded
//! plugins, the agent and its session, and the provider router a model change goes through.

use std::sync::Arc;

use tack_core::session::{SessionHandle, SessionStore};
use tack_core::Agent;

use crate::app::{Interactive, Loaded};
use crate::cli::Cli;
use crate::model_switch::ModelSwitch;
use crate::router::ProviderRouter;

pub struct FrontEnd {
    pub cli: Cli,
    pub loaded: Loaded,
    pub agent: Arc<Agent>,
    pub session: SessionHandle,
    pub store: SessionStore,
    pub router: Arc<ProviderRouter>,
    /// The provider chosen at start, to which `--api-key` and `--base-url` apply.
    pub startup_provider: String,
}

impl FrontEnd {
    pub fn new(cli: Cli, loaded: Loaded, started: Interactive) -> FrontEnd {
        FrontEnd {
            cli,
            loaded,
            agent: Arc::new(started.agent),
            session: started.session,
            store: started.store,
            router: started.router,
            startup_provider: started.startup_provider,
        }
    }

    /// The model switch over this state.
    pub fn model_switch(&self) -> ModelSwitch<'_> {
        ModelSwitch {
            agent: &self.agent,
            session: &self.session,
            router: &self.router,
            loaded: &self.loaded,
            cli: &self.cli,
            startup_provider: &self.startup_provider,
        }
    }
}
