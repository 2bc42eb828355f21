//! Weak-to-strong steering from the large model's top k only (what a served L returns),
//! against the exact computation over its whole distribution, on the real SmolLM2:
//! N = SmolLM2, E and L = SmolLM2 with two random LoRA adapters (L must differ from N,
//! whose distribution the estimate borrows), α = 1.

use bip::models::backend::Cpu;
use bip::models::{
    resolve_model, steered_top_k, LanguageModel, LlamaConfig, LoraAdapter, LoraConfig, PrefixCache,
    ScoreOptions, ScoreRequest, Scored,
};

fn logits(model: &LanguageModel<Cpu>, prompt: &str, continuation: &str) -> Scored {
    let options = ScoreOptions {
        full_logits: true,
        ..ScoreOptions::default()
    };
    let request = ScoreRequest {
        prompt,
        continuation,
    };
    let mut scored = model
        .score(&mut PrefixCache::default(), &[request], &options)
        .expect("scores");
    scored.pop().expect("one score")
}

fn log_softmax(row: &[f32]) -> Vec<f64> {
    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let ln_z = row
        .iter()
        .map(|&x| f64::from(x - max).exp())
        .sum::<f64>()
        .ln()
        + f64::from(max);
    row.iter().map(|&x| f64::from(x) - ln_z).collect()
}

#[test]
fn top_k_steering_is_bounded_and_close_to_the_exact_one_on_smollm2() {
    let path = resolve_model("smollm2-135m").unwrap_or_else(|e| {
        panic!("{e}\n(the LM tests need the real model: run scripts/fetch-models.sh)")
    });
    let base = LanguageModel::<Cpu>::load(&path, &Default::default()).expect("loads");
    let with_adapter = |seed: u64| {
        let config = LoraConfig::new(4, 8.0);
        let adapter = LoraAdapter::random(&LlamaConfig::smollm2_135m(), config, seed, 0.05);
        LanguageModel::<Cpu>::load_with_adapter(&path, &adapter, &Default::default())
            .expect("loads")
    };
    let (expert, large_model) = (with_adapter(3), with_adapter(11));
    let texts = [
        (
            "Ann is in the kitchen. She wants a cupcake. Next action:",
            " walk to the fridge",
        ),
        (
            "The capital of France is",
            " Paris, and the capital of Italy is Rome.",
        ),
    ];
    let alpha = 1.0;
    let mut report = Vec::new();
    for k in [20usize, 160] {
        let (mut worst, mut widest, mut count) = (0.0_f64, 0.0_f64, 0);
        for (prompt, continuation) in texts {
            let l = logits(&large_model, prompt, continuation);
            let e = logits(&expert, prompt, continuation);
            let n = logits(&base, prompt, continuation);
            let vocab = l.vocab_size;
            let (lr, er, nr) = (
                l.logits.expect("logits"),
                e.logits.expect("logits"),
                n.logits.expect("logits"),
            );
            for (i, &token) in l.tokens.iter().enumerate() {
                let row = |m: &[f32]| m[i * vocab..(i + 1) * vocab].to_vec();
                let (large, exp_row, naive) = (log_softmax(&row(&lr)), row(&er), row(&nr));
                let steered: Vec<f32> = (0..vocab)
                    .map(|v| (large[v] + alpha * f64::from(exp_row[v] - naive[v])) as f32)
                    .collect();
                let exact = log_softmax(&steered)[token as usize];
                let mut order: Vec<usize> = (0..vocab).collect();
                order.sort_by(|&a, &b| large[b].total_cmp(&large[a]));
                let top: Vec<(u32, f64)> =
                    order[..k].iter().map(|&v| (v as u32, large[v])).collect();
                let got =
                    steered_top_k(&top, token, large[token as usize], &exp_row, &naive, alpha)
                        .expect("steers");
                let slack = 1e-3; // f32 logits summed in f64 two ways
                assert!(
                    got.lower - slack <= exact && exact <= got.upper + slack,
                    "{got:?} {exact}"
                );
                worst = worst.max((got.estimate - exact).abs());
                widest = widest.max(got.upper - got.lower);
                count += 1;
            }
        }
        report.push(format!(
            "k={k}: {count} tokens, largest error {worst:.2e} nats, widest bound {widest:.2e}"
        ));
        assert!(worst <= widest + 1e-3);
    }
    eprintln!("top-k weak-to-strong on SmolLM2: {}", report.join("; "));
}
