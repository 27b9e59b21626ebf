//! Shards of one run (`--partition count:K/N | hash:K/N`, SPEC.md 13.5, `D-CASES-1`):
//! which selected case, and which generated case, belongs to shard K of N. The runner
//! selects by it and `summary` merges by it.

/// `--partition count:K/N | hash:K/N` (plain `K/N` is `count:K/N`), 1-based K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partition {
    /// The i-th selected case (in id order) belongs to shard `i % N + 1`.
    Count { k: u32, n: u32 },
    /// A case belongs to shard `sha256(id) mod N + 1`: stable when cases are added.
    Hash { k: u32, n: u32 },
}

impl Partition {
    pub fn parse(s: &str) -> Result<Partition, String> {
        let (kind, kn) = match s.split_once(':') {
            Some((kind, kn)) => (kind, kn),
            None => ("count", s),
        };
        let bad = || format!("--partition {s:?}: expected count:K/N or hash:K/N with 1 <= K <= N");
        let (k, n) = kn.split_once('/').ok_or_else(bad)?;
        let (k, n): (u32, u32) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        match kind {
            "count" => Ok(Partition::Count { k, n }),
            "hash" => Ok(Partition::Hash { k, n }),
            _ => Err(bad()),
        }
    }

    pub fn k_n(self) -> (u32, u32) {
        match self {
            Partition::Count { k, n } | Partition::Hash { k, n } => (k, n),
        }
    }

    pub fn label(self) -> String {
        match self {
            Partition::Count { k, n } => format!("count:{k}/{n}"),
            Partition::Hash { k, n } => format!("hash:{k}/{n}"),
        }
    }

    /// Does the `index`-th selected case (in id order), of id `id`, belong here?
    pub fn admits(self, index: usize, id: &str) -> bool {
        match self {
            Partition::Count { k, n } => index as u64 % u64::from(n) == u64::from(k - 1),
            Partition::Hash { k, n } => {
                let d = crate::fingerprint::sha256_hex(id.as_bytes());
                let h = u64::from_str_radix(&d[..16], 16).unwrap_or(0);
                h % u64::from(n) == u64::from(k - 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_like_nextest() {
        assert_eq!(Partition::parse("2/3"), Ok(Partition::Count { k: 2, n: 3 }));
        assert_eq!(
            Partition::parse("hash:1/2"),
            Ok(Partition::Hash { k: 1, n: 2 })
        );
        for bad in ["0/2", "3/2", "x", "count:1", "slice:1/2", "1/0"] {
            assert!(Partition::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_case_is_in_exactly_one_shard() {
        for p in [
            Partition::Count { k: 1, n: 3 },
            Partition::Hash { k: 1, n: 3 },
        ] {
            for i in 0..50 {
                let id = format!("g/c{i}");
                let owners = (1..=3)
                    .filter(|&k| {
                        let q = match p {
                            Partition::Count { n, .. } => Partition::Count { k, n },
                            Partition::Hash { n, .. } => Partition::Hash { k, n },
                        };
                        q.admits(i, &id)
                    })
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }
}
