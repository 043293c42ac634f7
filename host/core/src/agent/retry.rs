//! Bounded exponential backoff with jitter for retryable provider errors.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Tries in all, the first included (1 disables retrying).
    pub max_attempts: u32,
    /// Delay after the first failure; it doubles with each further failure.
    pub base_delay: Duration,
    /// Upper bound of any delay. A server asking for a longer wait is not retried.
    pub max_delay: Duration,
    /// Up to this fraction of the delay is added at random, so clients do not retry in step.
    pub jitter: f64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            jitter: 0.2,
        }
    }
}

impl RetryPolicy {
    /// The wait after failed try number `attempt` (1-based), or `None` when the server's
    /// `retry_after_ms` exceeds `max_delay`.
    pub fn delay(&self, attempt: u32, retry_after_ms: Option<u64>) -> Option<Duration> {
        if let Some(ms) = retry_after_ms {
            let asked = Duration::from_millis(ms);
            return (asked <= self.max_delay).then_some(asked);
        }
        let exponent = attempt.saturating_sub(1).min(30);
        let backoff = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        let jitter = if self.jitter > 0.0 {
            backoff.mul_f64(rand::random_range(0.0..=self.jitter))
        } else {
            Duration::ZERO
        };
        Some((backoff + jitter).min(self.max_delay))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_within_bounds() {
        let policy = RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
            jitter: 0.0,
        };
        assert_eq!(policy.delay(1, None), Some(Duration::from_millis(100)));
        assert_eq!(policy.delay(2, None), Some(Duration::from_millis(200)));
        assert_eq!(policy.delay(3, None), Some(Duration::from_millis(350)));
        assert_eq!(policy.delay(40, None), Some(Duration::from_millis(350)));
        assert_eq!(policy.delay(1, Some(300)), Some(Duration::from_millis(300)));
        assert_eq!(policy.delay(1, Some(5000)), None);
    }

    #[test]
    fn jitter_stays_in_range() {
        let policy = RetryPolicy::default();
        for _ in 0..100 {
            let d = policy.delay(1, None).unwrap();
            assert!(
                d >= Duration::from_secs(1) && d <= Duration::from_millis(1200),
                "{d:?}"
            );
        }
    }
}
