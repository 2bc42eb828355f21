//! Integration tests of bip as a whole: the command line and the library facade.

mod cli;
mod generate;
mod generate_theme;
mod hostile;
mod import;
mod inference;
mod layout;
mod lm;
mod lm_hostile;
mod lm_policy;
mod nested;
mod overwrite;
mod qwen;
mod regression;
mod remote;
mod study;
mod theme;
mod tomi;
mod train;
mod util;
mod virtualhome;
mod w2s_alpha;
mod w2s_topk;
