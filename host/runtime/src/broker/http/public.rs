//! "Any public address": the http grant `https://*` (or `http://*`) lets a plugin reach any host
//! on the internet, and nothing on this machine or the networks around it. A name is resolved
//! here, every address it resolves to is checked, and the connection is made to exactly those
//! addresses, so a name that resolves to a public address when checked and a private one when
//! connected (DNS rebinding) gets nowhere: there is no second lookup. Addresses written into the
//! URL never reach the resolver; [`check_literal`] judges those.
//!
//! Private means every range a request could use to reach something the user did not mean to
//! publish: loopback, the RFC 1918 and carrier-grade NAT ranges, link-local (cloud metadata lives
//! at 169.254.169.254), unique-local IPv6, multicast, and the reserved ranges; IPv6 forms that
//! embed an IPv4 address are judged by that address. The documentation ranges (TEST-NET) are
//! routed nowhere, so they count as public: tests use them, inside a network namespace, to stand
//! for a host on the internet.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The grant hosts that mean "any public address" for their scheme.
const WILDCARD_HOST: &str = "*";

/// The scheme an http grant opens to any public address (`https://*` → `https`), if it is one.
pub fn wildcard_scheme(grant: &str) -> Option<&str> {
    let (scheme, rest) = grant.split_once("://")?;
    let host = rest.strip_suffix('/').unwrap_or(rest);
    (host == WILDCARD_HOST && matches!(scheme, "http" | "https")).then_some(scheme)
}

/// Why a public-only request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{host} {how} {ip}, a {kind} address; a plugin granted any public address reaches it only \
     when that origin is granted by name"
)]
pub struct PrivateAddress {
    pub host: String,
    /// "is" for a literal address, "resolves to" for a name.
    pub how: &'static str,
    pub ip: IpAddr,
    pub kind: &'static str,
}

/// What kind of private address `ip` is, or `None` for a public one.
pub fn private_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => private_v4(v4),
        IpAddr::V6(v6) => private_v6(v6),
    }
}

fn private_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let kind = if ip.is_loopback() {
        "loopback"
    } else if ip.is_private() {
        "private-network"
    } else if ip.is_link_local() {
        "link-local"
    } else if a == 100 && (64..128).contains(&b) {
        "carrier-grade NAT"
    } else if a == 0 || ip.is_unspecified() {
        "unspecified"
    } else if ip.is_broadcast() || ip.is_multicast() || a >= 240 {
        "multicast or reserved"
    } else if a == 192 && b == 0 && c == 0 {
        "IETF protocol"
    } else if a == 198 && (18..20).contains(&b) {
        "benchmarking"
    } else {
        return None;
    };
    Some(kind)
}

fn private_v6(ip: Ipv6Addr) -> Option<&'static str> {
    // ::ffff:a.b.c.d and the NAT64 prefix 64:ff9b::/96 carry an IPv4 address the packet really
    // goes to; the deprecated ::a.b.c.d form too.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return private_v4(v4);
    }
    let segments = ip.segments();
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || (segments[..6] == [0; 6] && segments[6] != 0)
    {
        let [.., hi, lo] = segments;
        let v4 = Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
        return private_v4(v4);
    }
    let kind = if ip.is_loopback() {
        "loopback"
    } else if ip.is_unspecified() {
        "unspecified"
    } else if segments[0] & 0xfe00 == 0xfc00 {
        "unique-local"
    } else if segments[0] & 0xffc0 == 0xfe80 || segments[0] & 0xffc0 == 0xfec0 {
        "link-local"
    } else if ip.is_multicast() {
        "multicast"
    } else {
        return None;
    };
    Some(kind)
}

/// Refuses a URL whose host is a private address written as one (no lookup happens for those).
pub fn check_literal(url: &url::Url) -> Result<(), PrivateAddress> {
    let ip = match url.host() {
        Some(url::Host::Ipv4(v4)) => IpAddr::V4(v4),
        Some(url::Host::Ipv6(v6)) => IpAddr::V6(v6),
        _ => return Ok(()),
    };
    match private_kind(ip) {
        Some(kind) => Err(PrivateAddress {
            host: url.host_str().unwrap_or_default().to_string(),
            how: "is",
            ip,
            kind,
        }),
        None => Ok(()),
    }
}

/// Resolves names for the public-only client, refusing a name any of whose addresses is private:
/// a name that answers with one public and one private address is somebody's trick.
#[derive(Debug, Default, Clone)]
pub struct PublicOnlyResolver;

impl Resolve for PublicOnlyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if let Some((ip, kind)) = addrs
                .iter()
                .find_map(|a| private_kind(a.ip()).map(|k| (a.ip(), k)))
            {
                return Err(Box::new(PrivateAddress {
                    host,
                    how: "resolves to",
                    ip,
                    kind,
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The client for requests covered only by a wildcard grant: it resolves with
/// [`PublicOnlyResolver`] and ignores proxy settings (a proxy would make the connection, to
/// wherever it was asked, and the check here would judge the proxy's address instead).
pub fn client() -> reqwest::Result<reqwest::Client> {
    super::client_builder(super::CONNECT_TIMEOUT)
        .no_proxy()
        .dns_resolver(Arc::new(PublicOnlyResolver))
        .build()
}

/// The [`PrivateAddress`] somewhere in a failed request's chain of causes.
pub fn refused_by_resolver(error: &(dyn std::error::Error + 'static)) -> Option<PrivateAddress> {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if let Some(private) = e.downcast_ref::<PrivateAddress>() {
            return Some(private.clone());
        }
        cause = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<&'static str> {
        private_kind(text.parse().expect("an address"))
    }

    #[test]
    fn private_ranges_are_refused_and_public_ones_pass() {
        for private in [
            "127.0.0.1",
            "127.8.9.10",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
        ] {
            assert!(kind(private).is_some(), "{private} counted as public");
        }
        for public in [
            "1.1.1.1",
            "93.184.216.34",
            "172.32.0.1",
            "100.128.0.1",
            "203.0.113.7",
            "192.0.2.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert_eq!(kind(public), None, "{public} counted as private");
        }
    }

    #[test]
    fn only_a_bare_star_host_is_a_wildcard() {
        assert_eq!(wildcard_scheme("https://*"), Some("https"));
        assert_eq!(wildcard_scheme("http://*/"), Some("http"));
        assert_eq!(wildcard_scheme("https://*.example.com"), None);
        assert_eq!(wildcard_scheme("https://*:8080"), None);
        assert_eq!(wildcard_scheme("ftp://*"), None);
        assert_eq!(wildcard_scheme("https://example.com"), None);
    }

    #[test]
    fn literal_addresses_are_judged_without_a_lookup() {
        let url = |u: &str| url::Url::parse(u).expect("url");
        let refused = check_literal(&url("http://[::ffff:7f00:1]:8080/x")).expect_err("mapped");
        assert_eq!(refused.kind, "loopback");
        assert!(check_literal(&url("http://0x7f.1/")).is_err());
        assert!(check_literal(&url("https://203.0.113.9/")).is_ok());
        assert!(
            check_literal(&url("https://localhost/")).is_ok(),
            "names go to the resolver"
        );
    }

    #[tokio::test]
    async fn a_name_for_this_machine_is_refused_by_the_resolver() {
        let name: Name = "localhost".parse().expect("a name");
        let Err(error) = PublicOnlyResolver.resolve(name).await else {
            panic!("localhost resolved as public");
        };
        let refused = refused_by_resolver(error.as_ref()).expect("a PrivateAddress");
        assert_eq!(refused.how, "resolves to");
        assert_eq!(refused.kind, "loopback");
    }
}
