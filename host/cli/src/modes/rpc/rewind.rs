//! `get_rewind_points` and `rewind`: the file checkpoints of `crate::checkpoints`, through
//! `commands::rewind`. Both wait for a running run to finish, so its checkpoint is recorded.

use tack_protocol::{RewindMode, RewindPoints};

use super::server::{data, occupied, Reply, Server};
use crate::modes::driver::BusyKind;

impl Server {
    pub async fn rewind_points(&self) -> Reply {
        let work = self
            .driver
            .occupy(BusyKind::HostCommand)
            .await
            .map_err(occupied)?;
        let points = self.driver.checkpoints.points(&self.front.session).await;
        self.driver.release(&work);
        data(RewindPoints {
            points: points?.iter().map(|p| p.wire()).collect(),
        })
    }

    pub async fn rewind(&self, entry_id: &str, mode: RewindMode) -> Reply {
        let work = self
            .driver
            .occupy(BusyKind::HostCommand)
            .await
            .map_err(occupied)?;
        let done = crate::commands::rewind::rewind(
            &self.front.agent,
            &self.driver.checkpoints,
            entry_id,
            mode,
            work.cancel.clone(),
        )
        .await;
        self.driver.release(&work);
        data(done?)
    }
}
