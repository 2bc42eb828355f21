//! `bip lm inspect`: architecture, sizes, tokenizer and quantization of a model (weights
//! not read).

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use bip::models::{resolve_model, ModelInfo};

use crate::cli::output::Output;

#[derive(Debug, Args)]
pub(super) struct InspectArgs {
    /// A GGUF file, a Hugging Face folder, or an alias (smollm2-135m).
    #[arg(long)]
    pub(super) model: String,
    /// Print the description as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `bip lm inspect`.
pub(super) fn inspect(args: &InspectArgs, out: &mut Output) -> anyhow::Result<ExitCode> {
    let path = resolve_model(&args.model)?;
    let info = ModelInfo::read(&path).context("reading the model")?;
    if args.json {
        out.json(&info)?;
    } else {
        out.print(&describe(&info))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The human-readable description `inspect` prints.
fn describe(info: &ModelInfo) -> String {
    use std::fmt::Write;
    let c = &info.config;
    let t = &info.tokenizer;
    let mut s = String::new();
    // Writing to a `String` cannot fail.
    let mut line = |text: String| {
        let _ = writeln!(s, "{text}");
    };
    line(format!("model         {}", info.path.display()));
    line(format!("format        {}", info.format));
    if let Some(name) = &info.name {
        line(format!("name          {name}"));
    }
    line(format!("architecture  {}", info.architecture));
    line(format!(
        "parameters    {} ({:.1} M)",
        info.parameters,
        info.parameters as f64 / 1e6
    ));
    line(format!(
        "layers        {} × (hidden {}, ffn {}, heads {} / kv heads {}, head dim {})",
        c.num_layers,
        c.hidden_size,
        c.intermediate_size,
        c.num_heads,
        c.num_kv_heads,
        c.head_dim()
    ));
    let context = if info.declared_context == c.max_seq_len {
        c.max_seq_len.to_string()
    } else {
        format!("{} (declared {})", c.max_seq_len, info.declared_context)
    };
    line(format!(
        "rope theta    {}   rms eps {}   context {context}   tied head {}   qkv bias {}",
        c.rope_theta, c.rms_norm_eps, c.tie_embeddings, c.attention_bias
    ));
    let types: Vec<String> = info
        .tensor_types
        .iter()
        .map(|(k, v)| format!("{k} ×{v}"))
        .collect();
    line(format!("tensors       {}", types.join(", ")));
    if let Some(ft) = &info.file_type {
        line(format!("file type     {ft}"));
    }
    line(format!(
        "tokenizer     {} ({} tokens)",
        t.kind, t.vocab_size
    ));
    let id = |v: Option<u32>| v.map_or("none".to_string(), |v| v.to_string());
    line(format!(
        "special       bos {}  eos {}  adds bos {}  {} special tokens  chat template {}",
        id(t.bos_token),
        id(t.eos_token),
        t.adds_bos,
        t.special_tokens.len(),
        t.chat_template
    ));
    s
}
