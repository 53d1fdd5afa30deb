//! Barriers: arrivals counted per scope, cluster and id.
//!
//! `barrier.sync.local id, count` completes when `count` cores of the
//! issuing core's cluster have arrived at it with that id;
//! `barrier.sync.global id, count` when `count` cores of any cluster have.
//! A completed barrier resets, so the same id can be used again.
//!
//! Invariants: a core waits at most at one barrier; cores arriving at one
//! pending barrier must give the same count (a mismatch is reported);
//! completion releases exactly the arrived cores, in arrival order.

use mlu_isa::Scope;
use std::collections::BTreeMap;

/// A barrier some cores wait at.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub count: u64,
    /// (core, pc of its barrier instruction, arrival time)
    pub arrived: Vec<(u32, u32, u64)>,
}

/// What an arrival did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// The core waits.
    Wait,
    /// The barrier completed: the cores it releases and the last arrival time.
    Complete { cores: Vec<u32>, last: u64 },
    /// The count differs from the one the first core gave.
    Mismatch(u64),
}

/// A barrier's key: scope (0 local, 1 global), cluster (local only), id.
pub(crate) type Key = (u8, u32, u64);

#[derive(Debug, Default)]
pub(crate) struct Barriers {
    pending: BTreeMap<Key, Pending>,
}

impl Barriers {
    pub fn key(scope: Scope, cluster: u32, id: u64) -> Key {
        match scope {
            Scope::Local => (0, cluster, id),
            Scope::Global => (1, 0, id),
        }
    }

    /// Core `core` arrives at time `t` (instruction `pc`).
    pub fn arrive(&mut self, key: Key, count: u64, core: u32, pc: u32, t: u64) -> Arrival {
        let p = self.pending.entry(key).or_insert_with(|| Pending { count, arrived: Vec::new() });
        if p.count != count {
            return Arrival::Mismatch(p.count);
        }
        p.arrived.push((core, pc, t));
        if (p.arrived.len() as u64) < count {
            return Arrival::Wait;
        }
        let done = self.pending.remove(&key).unwrap_or(Pending { count, arrived: Vec::new() });
        let last = done.arrived.iter().map(|a| a.2).max().unwrap_or(t);
        Arrival::Complete { cores: done.arrived.iter().map(|a| a.0).collect(), last }
    }

    /// The barrier core `core` waits at, if any.
    pub fn waiting_for(&self, core: u32) -> Option<(Key, &Pending)> {
        self.pending.iter().find(|(_, p)| p.arrived.iter().any(|a| a.0 == core)).map(|(k, p)| (*k, p))
    }
}

/// Describes a barrier nobody else can reach.
pub(crate) fn describe_deadlock(key: Key, p: &Pending) -> String {
    let scope = if key.0 == 0 {
        format!("barrier.sync.local {} of cluster {}", key.2, key.1)
    } else {
        format!("barrier.sync.global {}", key.2)
    };
    let cores: Vec<String> = p.arrived.iter().map(|a| a.0.to_string()).collect();
    format!(
        "{scope} waits for {} cores but only {} arrived (cores {}); every other core has exited or waits at another barrier",
        p.count,
        p.arrived.len(),
        cores.join(", ")
    )
}
