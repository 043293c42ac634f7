//! Per-store resource limits. A plugin that asks for more memory than allowed traps with a
//! message that says so, instead of seeing a failed `memory.grow` and aborting obscurely.

use wasmtime::ResourceLimiter;

pub struct PluginLimiter {
    pub memory_bytes: usize,
    pub table_elements: usize,
    /// Set when a growth was refused, so the error can be classified as out-of-memory.
    pub memory_exceeded: bool,
}

impl PluginLimiter {
    pub fn new(memory_bytes: usize, table_elements: usize) -> Self {
        Self {
            memory_bytes,
            table_elements,
            memory_exceeded: false,
        }
    }
}

impl ResourceLimiter for PluginLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_bytes || maximum.is_some_and(|m| desired > m) {
            self.memory_exceeded = true;
            wasmtime::bail!(
                "memory limit of {} MiB exceeded (asked for {} MiB)",
                self.memory_bytes >> 20,
                desired >> 20
            );
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.table_elements {
            wasmtime::bail!("table limit of {} elements exceeded", self.table_elements);
        }
        Ok(true)
    }

    fn instances(&self) -> usize {
        // A component instantiates a handful of core instances (the guest, adapters, shims).
        64
    }

    fn tables(&self) -> usize {
        64
    }

    fn memories(&self) -> usize {
        16
    }
}
