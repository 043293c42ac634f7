//! `export_html`: the session as a self-contained HTML page ([`crate::sessions::export_html`]).

use std::path::Path;

use tack_protocol::ExportedHtml;

use super::server::{data, Reply, Server};

impl Server {
    pub fn export_html(&self, output: Option<&str>) -> Reply {
        let path = {
            let s = self.front.session.lock();
            crate::sessions::export_html::write(&s, output.map(Path::new), &self.front.loaded.cwd)?
        };
        data(ExportedHtml {
            path: path.display().to_string(),
        })
    }
}
