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
