use super::*;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bip-score-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn keeps_scores_across_opens() {
    let dir = temp_dir("reopen");
    let cache = ScoreCache::open(&dir, "model a").expect("opens");
    assert_eq!(cache.get(&[1, 2, 3], 1), None);
    cache.insert(&[1, 2, 3], 1, &[-0.25]).expect("writes");
    cache
        .insert(&[1, 2, 4], 2, &[-1.5, -0.125])
        .expect("writes");
    assert_eq!(cache.get(&[1, 2, 3], 1), Some(vec![-0.25]));
    drop(cache);
    let cache = ScoreCache::open(&dir, "model a").expect("reopens");
    assert_eq!(cache.get(&[1, 2, 4], 2), Some(vec![-1.5, -0.125]));
    assert_eq!(
        cache.get(&[1, 2, 4], 1),
        None,
        "the split is part of the key"
    );
    let stats = cache.stats();
    assert_eq!((stats.lookups, stats.hits, stats.loaded), (2, 1, 2));
    assert_eq!(stats.hit_rate(), Some(0.5));
    // Another model has its own file.
    let other = ScoreCache::open(&dir, "model b").expect("opens");
    assert!(other.is_empty());
    assert_ne!(other.path(), cache.path());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn drops_a_record_cut_short() {
    let dir = temp_dir("partial");
    let cache = ScoreCache::open(&dir, "m").expect("opens");
    cache.insert(&[7, 8], 1, &[-2.0]).expect("writes");
    let path = cache.path().to_path_buf();
    drop(cache);
    let mut file = OpenOptions::new().append(true).open(&path).expect("opens");
    file.write_all(br#"{"t":[7,9],"c":1,"l":[-"#)
        .expect("writes");
    drop(file);
    let cache = ScoreCache::open(&dir, "m").expect("a partial last line is dropped");
    assert_eq!(cache.len(), 1);
    cache.insert(&[7, 9], 1, &[-3.0]).expect("writes");
    drop(cache);
    let cache = ScoreCache::open(&dir, "m").expect("whole again");
    assert_eq!(cache.get(&[7, 9], 1), Some(vec![-3.0]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_the_file_and_line_of_a_bad_record() {
    let dir = temp_dir("bad");
    let cache = ScoreCache::open(&dir, "m").expect("opens");
    let path = cache.path().to_path_buf();
    drop(cache);
    let mut file = OpenOptions::new().append(true).open(&path).expect("opens");
    file.write_all(b"{\"t\":[1],\"c\":1,\"l\":[]}\n")
        .expect("writes");
    drop(file);
    let err = ScoreCache::open(&dir, "m")
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains(&path.display().to_string()) && err.contains("line 2"),
        "{err}"
    );
    std::fs::write(
        &path,
        "{\"format\":\"bip-score-cache/1\",\"model\":\"x\"}\n",
    )
    .expect("writes");
    let err = ScoreCache::open(&dir, "m")
        .expect_err("refused")
        .to_string();
    assert!(err.contains("not of `m`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The cache file of `identity` in `dir` holding `records` after its header.
fn cache_with(dir: &Path, records: &[&str]) -> PathBuf {
    let path = ScoreCache::open(dir, "m")
        .expect("opens")
        .path()
        .to_path_buf();
    let mut file = OpenOptions::new().append(true).open(&path).expect("opens");
    for r in records {
        file.write_all(format!("{r}\n").as_bytes()).expect("writes");
    }
    path
}

#[test]
fn a_score_that_is_no_log_probability_is_refused() {
    for (name, record, says) in [
        (
            "positive",
            r#"{"t":[1,2],"c":1,"l":[0.5]}"#,
            "is not a log-probability",
        ),
        ("huge", r#"{"t":[1,2],"c":1,"l":[-1e39]}"#, "out of range"),
    ] {
        let dir = temp_dir(name);
        cache_with(&dir, &[r#"{"t":[1,3],"c":1,"l":[-0.5]}"#, record]);
        let err = ScoreCache::open(&dir, "m").expect_err(name).to_string();
        assert!(
            err.contains("line 3") && err.contains(says),
            "{name}: {err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_text_scored_twice_keeps_its_first_score_and_refuses_a_different_one() {
    let dir = temp_dir("twice");
    // Rounding apart: the first stands.
    cache_with(
        &dir,
        &[
            r#"{"t":[1,2],"c":1,"l":[-0.5]}"#,
            r#"{"t":[1,2],"c":1,"l":[-0.5000001]}"#,
        ],
    );
    let cache = ScoreCache::open(&dir, "m").expect("agreeing duplicates read");
    assert_eq!(cache.get(&[1, 2], 1), Some(vec![-0.5]));
    cache.insert(&[1, 2], 1, &[-0.5000002]).expect("writes");
    assert_eq!(cache.get(&[1, 2], 1), Some(vec![-0.5]), "the first stands");
    drop(cache);
    let _ = std::fs::remove_dir_all(&dir);
    // Another score for the same text is not this model's.
    cache_with(
        &dir,
        &[
            r#"{"t":[1,2],"c":1,"l":[-3.0]}"#,
            r#"{"t":[5],"c":1,"l":[-1.0]}"#,
            r#"{"t":[1,2],"c":1,"l":[-0.01]}"#,
        ],
    );
    let err = ScoreCache::open(&dir, "m")
        .expect_err("refused")
        .to_string();
    assert!(
        err.contains("line 4") && err.contains("tokens of line 2 again"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cache_file_that_is_a_pipe_or_a_device_is_refused_not_read_for_ever() {
    let dir = temp_dir("special");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join(file_name("piped"));
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo is needed");
    let err = ScoreCache::open(&dir, "piped").unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    std::os::unix::fs::symlink("/dev/zero", dir.join(file_name("zeros"))).unwrap();
    let err = ScoreCache::open(&dir, "zeros").unwrap_err().to_string();
    assert!(err.contains("not a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
