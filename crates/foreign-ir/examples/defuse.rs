//! DU/UD chains on an IR that has nothing to do with Keel's.
//!
//! The toy IR (this package's `Toy`) implements `cfg_dom::Graph` and
//! `cfg_dom::VarCode`; that is all `defuse` needs. This prints the chains
//! of the DU-chain document's worked example (digest §000, figure 4 /
//! table 3), computed by the SSA method, and checks that the iterative
//! baseline and the oracle agree and that the use of `x` in s10 is reached
//! by s4, s7 and s9, as the document's table says.
//!
//! Run it with `cargo run -p foreign-ir --example defuse`.

use foreign_ir::programs::du_chains;

fn main() {
    let toy = du_chains();
    let chains = defuse::via_ssa(&toy, &toy).expect("the toy program is well formed");
    // The baseline and the oracle agree, on the toy IR as on Keel's.
    assert_eq!(chains, defuse::iterative(&toy, &toy).expect("well formed"));
    assert_eq!(chains, defuse::oracle(&toy, &toy).expect("well formed"));
    let sites = chains.sites();
    let name = |stmt: u32| toy.stmts[stmt as usize].label().to_string();
    let def_name = |d| match sites.def(d) {
        Some(defuse::Def::Result { inst, .. }) => name(inst),
        Some(defuse::Def::Param(i)) => format!("param{i}"),
        None => "?".into(),
    };
    // The document's table: UD of x in s10 = {s4, s7, s9}.
    let s10 = 7;
    let use_x = sites.use_id(s10, 0).expect("s10 reads x");
    let reaching: Vec<String> = chains.defs_of(use_x).iter().map(|&d| def_name(d)).collect();
    assert_eq!(reaching, ["s4", "s7", "s9"]);

    let list = |v: Vec<String>| format!("{{{}}}", v.join(", "));
    println!("{:<20} {:<22} uses <- defined at", "statement", "defines -> used at");
    for (i, s) in toy.stmts.iter().enumerate() {
        let i = i as u32;
        let du: Vec<String> = sites
            .defs_of_inst(i)
            .map(|d| {
                let var = sites.def_var(d).map_or("?", |v| toy.var_name(v));
                let used = chains.uses_of(d).iter().filter_map(|&u| sites.use_at(u)).map(|u| name(u.inst));
                format!("{var} -> {}", list(used.collect()))
            })
            .collect();
        let ud: Vec<String> = sites
            .uses_of_inst(i)
            .map(|u| {
                let var = sites.use_var(u).map_or("?", |v| toy.var_name(v));
                format!("{var} <- {}", list(chains.defs_of(u).iter().map(|&d| def_name(d)).collect()))
            })
            .collect();
        println!("{:<20} {:<22} {}", s.text, du.join("; "), ud.join("; "));
    }
}
