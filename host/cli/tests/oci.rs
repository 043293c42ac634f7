//! Publishing to and installing from a real OCI registry (Debian's `docker-registry`, the CNCF
//! distribution registry) started on 127.0.0.1, with and without basic auth, through the real
//! binary: tags, digests, moved tags, tampered blobs, and publisher signatures.
//!
//! Without `docker-registry` on PATH the tests skip with a message, unless
//! `TACK_REQUIRE_REGISTRY=1` (set by `.ci/run`, which installs it with
//! scripts/install-docker-registry).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test reports a failed setup.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use tack_builtin::artifacts;
use tack_test_support::{tack, Env, Package};

/// A registry serving from a temp folder until dropped.
struct Registry {
    child: Child,
    addr: String,
    dir: tempfile::TempDir,
}

impl Registry {
    fn start(basic_auth: Option<(&str, &str)>) -> Option<Registry> {
        let exe = ["/usr/bin/docker-registry", "/usr/local/bin/docker-registry"]
            .iter()
            .map(PathBuf::from)
            .find(|p| p.is_file());
        let Some(exe) = exe else {
            assert!(
                std::env::var_os("TACK_REQUIRE_REGISTRY").is_none(),
                "TACK_REQUIRE_REGISTRY is set but docker-registry is missing (scripts/install-docker-registry)"
            );
            eprintln!(
                "skipping: no docker-registry (scripts/install-docker-registry installs Debian's)"
            );
            return None;
        };
        let dir = tempfile::tempdir().expect("tmp");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .expect("port")
            .local_addr()
            .expect("addr")
            .port();
        let addr = format!("127.0.0.1:{port}");
        let mut config = format!(
            "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\nhttp:\n  addr: {addr}\n",
            dir.path().join("data").display()
        );
        if let Some((user, password)) = basic_auth {
            let hash = bcrypt::hash(password, 4).expect("bcrypt");
            let htpasswd = dir.path().join("htpasswd");
            std::fs::write(&htpasswd, format!("{user}:{hash}\n")).expect("htpasswd");
            config.push_str(&format!(
                "auth:\n  htpasswd:\n    realm: tack-test\n    path: {}\n",
                htpasswd.display()
            ));
        }
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).expect("config");
        let child = Command::new(exe)
            .arg("serve")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("docker-registry starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(&addr).is_err() {
            assert!(Instant::now() < deadline, "the registry did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Registry { child, addr, dir })
    }

    fn url(&self, path: &str) -> String {
        format!("oci://{}/{path}", self.addr)
    }

    /// The stored blob files, largest first.
    fn blobs(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.file_name().is_some_and(|n| n == "data") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &self.dir.path().join("data/docker/registry/v2/blobs"),
            &mut out,
        );
        out.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)));
        out
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn env() -> Env {
    let env = Env::new(tack!());
    let docker = env.root().join("docker");
    std::fs::create_dir_all(&docker).expect("docker dir");
    env.with_var("DOCKER_CONFIG", docker)
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn ok(o: Output) -> String {
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    t
}

fn failed(o: Output) -> String {
    let t = text(&o);
    assert!(!o.status.success(), "expected a failure: {t}");
    t
}

/// A package folder with a README and a skill, asking for `caps`.
fn package(env: &Env, dir: &str, version: &str, caps: &str) -> PathBuf {
    let dir = Package::new("hostile", artifacts::TEST_HOSTILE)
        .version(version)
        .component("hostile.wasm")
        .description("test package")
        .capabilities(caps)
        .write_to(&env.root().join(dir));
    std::fs::write(dir.join("README.md"), "# hostile\n").expect("readme");
    std::fs::create_dir_all(dir.join("skills/demo")).expect("skills");
    std::fs::write(
        dir.join("skills/demo/SKILL.md"),
        "---\nname: demo\n---\nhi\n",
    )
    .expect("skill");
    dir
}

fn lock(env: &Env) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(env.home().join("tack.lock")).expect("lockfile"))
        .expect("toml")
}

fn locked_digest(env: &Env) -> String {
    lock(env)["package"].as_array().expect("packages")[0]["digest"]
        .as_str()
        .expect("digest")
        .to_string()
}

fn manifest_line(out: &str) -> String {
    out.lines()
        .find_map(|l| l.trim().strip_prefix("manifest "))
        .expect("manifest digest printed")
        .to_string()
}

#[test]
fn publish_install_by_tag_and_digest_update_and_tampering() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let author = env();
    let v1 = package(&author, "v1", "1.0.0", "");
    let target = registry.url("tack/hostile:stable");
    let out = ok(author.run(&["publish", v1.to_str().unwrap(), &target]));
    let digest = manifest_line(&out);

    // By tag: the digest is locked, every file (component, README, skill) is installed.
    let user = env();
    let out = ok(user.run(&["install", &target]));
    assert!(out.contains(&digest) && out.contains("unsigned"), "{out}");
    assert_eq!(locked_digest(&user), digest);
    let installed = user.home().join("packages/hostile");
    for file in [
        "tack.toml",
        "hostile.wasm",
        "README.md",
        "skills/demo/SKILL.md",
    ] {
        assert!(installed.join(file).is_file(), "{file} installed");
    }
    assert_eq!(
        std::fs::read(installed.join("hostile.wasm")).expect("wasm"),
        std::fs::read(artifacts::TEST_HOSTILE).expect("wasm")
    );
    assert!(!lock(&user).to_string().contains("password"));

    // By digest, into another home: the same manifest.
    let pinned_user = env();
    let by_digest = registry.url(&format!("tack/hostile@{digest}"));
    ok(pinned_user.run(&["install", &by_digest]));
    assert_eq!(locked_digest(&pinned_user), digest);

    // The tag moves to 2.0.0, which asks for more: a plain install refuses to take it silently,
    // `update` shows what changed and takes it; the digest-pinned install stays.
    let v2 = package(&author, "v2", "2.0.0", "exec = [\"git\"]");
    let out = ok(author.run(&["publish", v2.to_str().unwrap(), &target]));
    let digest2 = manifest_line(&out);
    assert_ne!(digest, digest2);
    let out = failed(user.run(&["install", &target]));
    assert!(
        out.contains("now points to") && out.contains("tack update"),
        "{out}"
    );
    assert_eq!(locked_digest(&user), digest, "nothing taken");
    let out = ok(user.run(&["update", "hostile"]));
    assert!(
        out.contains(&format!("moved from {digest} to {digest2}")),
        "{out}"
    );
    assert!(out.contains("version 1.0.0 -> 2.0.0"), "{out}");
    assert!(out.contains("+ asks to") && out.contains("git"), "{out}");
    assert_eq!(locked_digest(&user), digest2);
    let out = ok(user.run(&["update", "hostile"]));
    assert!(out.contains("up to date"), "{out}");
    let out = ok(pinned_user.run(&["update", "hostile"]));
    assert!(out.contains("pinned"), "{out}");

    // A tampered blob (the component, the largest) is refused, and nothing is installed.
    let component = registry.blobs().into_iter().next().expect("a blob");
    let mut bytes = std::fs::read(&component).expect("blob");
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&component, bytes).expect("tamper");
    let victim = env();
    let out = failed(victim.run(&["install", &by_digest]));
    assert!(out.contains("failed its check"), "{out}");
    assert!(!victim.home().join("packages/hostile").exists());
    assert!(!victim.home().join("tack.lock").exists());
}

#[test]
fn basic_auth_registry_needs_a_login() {
    let Some(registry) = Registry::start(Some(("alice", "s3cret-pass"))) else {
        return;
    };
    let author = env();
    let v1 = package(&author, "v1", "1.0.0", "");
    let target = registry.url("tack/hostile:1.0.0");
    let out = failed(author.run(&["publish", v1.to_str().unwrap(), &target]));
    assert!(out.contains("tack login"), "{out}");

    // `tack login` reads the password from stdin and keeps it out of everything it prints.
    let mut login = author.command();
    login
        .args(["login", &registry.addr, "-u", "alice", "--password-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = login.spawn().expect("login");
    std::io::Write::write_all(child.stdin.as_mut().expect("stdin"), b"s3cret-pass\n")
        .expect("password");
    let out = ok(child.wait_with_output().expect("login"));
    assert!(!out.contains("s3cret"), "{out}");
    let out = ok(author.run(&["publish", v1.to_str().unwrap(), &target]));
    assert!(!out.contains("s3cret"), "{out}");

    // Installing with the Docker config's credentials.
    let user = env();
    let out = failed(user.run(&["install", &target]));
    assert!(
        out.contains("tack login") && !out.contains("s3cret"),
        "{out}"
    );
    let docker = user.root().join("docker/config.json");
    std::fs::write(
        &docker,
        serde_json::json!({ "auths": { registry.addr.clone(): {
            "auth": base64::engine::general_purpose::STANDARD.encode("alice:s3cret-pass")
        } } })
        .to_string(),
    )
    .expect("docker config");
    let out = ok(user.run(&["install", &target]));
    assert!(!out.contains("s3cret"), "{out}");
    let lockfile = std::fs::read_to_string(user.home().join("tack.lock")).expect("lock");
    assert!(
        !lockfile.contains("s3cret") && !lockfile.contains("alice"),
        "{lockfile}"
    );
}

#[test]
fn signatures_pin_on_first_use_and_refuse_another_key() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let author = env();
    let out = ok(author.run(&["keygen"]));
    assert!(out.contains("SHA256:"), "{out}");
    let key = author.home().join("keys/default.key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).expect("key").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let fingerprint = out
        .split_whitespace()
        .find(|w| w.starts_with("SHA256:"))
        .expect("fingerprint")
        .to_string();

    let v1 = package(&author, "v1", "1.0.0", "");
    let target = registry.url("tack/hostile:latest");
    let out = ok(author.run(&["publish", "--sign", v1.to_str().unwrap(), &target]));
    assert!(out.contains(&fingerprint), "{out}");

    // First install: the key is shown and pinned.
    let user = env();
    let out = ok(user.run(&["install", "--require-signature", &target]));
    assert!(
        out.contains("trust on first use") && out.contains(&fingerprint),
        "{out}"
    );
    let pins = std::fs::read_to_string(user.home().join("publishers.toml")).expect("pins");
    assert!(pins.contains("hostile"), "{pins}");
    let list = ok(user.run(&["list"]));
    assert!(list.contains(&fingerprint), "{list}");

    // Another key publishes 2.0.0 under the same name: refused, nothing changes.
    let thief = env();
    ok(thief.run(&["keygen"]));
    let v2 = package(&author, "v2", "2.0.0", "");
    let thief_key = thief.home().join("keys/default.key");
    ok(author.run(&[
        "publish",
        "--sign",
        "--key",
        thief_key.to_str().unwrap(),
        v2.to_str().unwrap(),
        &target,
    ]));
    let before = locked_digest(&user);
    let out = failed(user.run(&["update", "hostile"]));
    assert!(
        out.contains("refusing hostile") && out.contains(&fingerprint),
        "{out}"
    );
    assert_eq!(locked_digest(&user), before);

    // Unsigned: refused with --require-signature or the config key, taken (and said) without.
    // Another version: the same bytes as v1 would have v1's digest, which is signed.
    let unsigned_target = registry.url("tack/hostile:unsigned");
    let v1_1 = package(&author, "v1.1", "1.1.0", "");
    ok(author.run(&["publish", v1_1.to_str().unwrap(), &unsigned_target]));
    let fresh = env();
    let out = failed(fresh.run(&["install", "--require-signature", &unsigned_target]));
    assert!(
        out.contains("unsigned") && out.contains("required"),
        "{out}"
    );
    std::fs::write(
        fresh.home().join("config.toml"),
        "[packages]\nrequire_signature = true\n",
    )
    .expect("config");
    let out = failed(fresh.run(&["install", &unsigned_target]));
    assert!(out.contains("required"), "{out}");
    std::fs::remove_file(fresh.home().join("config.toml")).expect("rm");
    let out = ok(fresh.run(&["install", &unsigned_target]));
    assert!(out.contains("unsigned"), "{out}");

    // A pinned name refuses an unsigned version too.
    ok(user.run(&["remove", "hostile"]));
    let out = failed(user.run(&["install", &unsigned_target]));
    assert!(
        out.contains("unsigned") && out.contains(&fingerprint),
        "{out}"
    );

    // A key pre-trusted in trusted-keys/ is accepted (here the second key, in a fresh home).
    let trusting = env();
    let trusted_dir = trusting.home().join("trusted-keys");
    std::fs::create_dir_all(&trusted_dir).expect("dir");
    std::fs::copy(
        thief.home().join("keys/default.pub"),
        trusted_dir.join("colleague.pub"),
    )
    .expect("copy");
    let out = ok(trusting.run(&["install", "--require-signature", &target]));
    assert!(out.contains("trusted-keys/colleague.pub"), "{out}");
}

/// One plain HTTP/1.1 request to the registry: (status, body).
fn http(addr: &str, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: application/vnd.oci.image.manifest.v1+json\r\nContent-Type: application/vnd.oci.image.manifest.v1+json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body).expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers");
    let status = String::from_utf8_lossy(&response[9..12])
        .parse()
        .expect("status");
    (status, response[split + 4..].to_vec())
}

#[test]
fn a_signature_replayed_onto_another_manifest_is_refused() {
    let Some(registry) = Registry::start(None) else {
        return;
    };
    let author = env();
    ok(author.run(&["keygen"]));
    let v1 = package(&author, "v1", "1.0.0", "");
    let v2 = package(&author, "v2", "2.0.0", "exec = [\"git\"]");
    let signed = manifest_line(&ok(author.run(&[
        "publish",
        "--sign",
        v1.to_str().unwrap(),
        &registry.url("tack/hostile:1.0.0"),
    ])));
    let unsigned = manifest_line(&ok(author.run(&[
        "publish",
        v2.to_str().unwrap(),
        &registry.url("tack/hostile:2.0.0"),
    ])));
    // Someone with push access copies 1.0.0's valid signature onto 2.0.0.
    let (status, sig) = http(
        &registry.addr,
        "GET",
        &format!(
            "/v2/tack/hostile/manifests/{}.sig",
            signed.replace(':', "-")
        ),
        b"",
    );
    assert_eq!(status, 200);
    let (status, _) = http(
        &registry.addr,
        "PUT",
        &format!(
            "/v2/tack/hostile/manifests/{}.sig",
            unsigned.replace(':', "-")
        ),
        &sig,
    );
    assert_eq!(status, 201);
    let user = env();
    let out = failed(user.run(&["install", &registry.url("tack/hostile:2.0.0")]));
    assert!(
        out.contains("does not verify") && out.contains(&format!("not {unsigned}")),
        "{out}"
    );
    assert!(!user.home().join("packages/hostile").exists());
}
