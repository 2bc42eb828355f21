//! Chat prompt templates, recognised from a model's Jinja template.

/// How a model expects a chat to be laid out.
///
/// bip does not run Jinja: it recognises the template families it knows and renders them
/// itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatTemplate {
    /// ChatML (`<|im_start|>role\ncontent<|im_end|>\n`), used by SmolLM2 and Qwen2, with
    /// the system message the template inserts when the chat has none.
    ChatMl {
        /// The template's default system message, if it has one.
        default_system: Option<String>,
    },
    /// No template, or one bip does not recognise.
    None,
}

impl ChatTemplate {
    /// Recognises a Jinja chat template.
    pub fn from_jinja(template: &str) -> Self {
        if !template.contains("<|im_start|>") {
            return Self::None;
        }
        let marker = "<|im_start|>system\n";
        let default_system = template.find(marker).and_then(|at| {
            let rest = &template[at + marker.len()..];
            let end = rest.find("<|im_end|>")?;
            let text = &rest[..end];
            // A literal message, not the `+ message['content'] +` of the message loop.
            (!text.contains('\'') && !text.contains("{{")).then(|| text.to_string())
        });
        Self::ChatMl { default_system }
    }

    /// The prompt for a single user message, ready for the assistant's reply, or `None`
    /// without a known template.
    pub fn render_user(&self, message: &str) -> Option<String> {
        match self {
            Self::ChatMl { default_system } => {
                let mut out = String::new();
                if let Some(system) = default_system {
                    out.push_str(&format!("<|im_start|>system\n{system}<|im_end|>\n"));
                }
                out.push_str(&format!(
                    "<|im_start|>user\n{message}<|im_end|>\n<|im_start|>assistant\n"
                ));
                Some(out)
            }
            Self::None => None,
        }
    }

    /// A short name for reports.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ChatMl { .. } => "chatml",
            Self::None => "none",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMOLLM2: &str = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

    #[test]
    fn smollm2_template_renders_like_its_jinja() {
        let t = ChatTemplate::from_jinja(SMOLLM2);
        assert_eq!(
            t.render_user("Hi?").unwrap(),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n<|im_start|>user\nHi?<|im_end|>\n<|im_start|>assistant\n"
        );
    }

    #[test]
    fn template_without_default_system() {
        let t = ChatTemplate::from_jinja("{{'<|im_start|>' + message['role'] + '\n'}}");
        assert_eq!(
            t,
            ChatTemplate::ChatMl {
                default_system: None
            }
        );
        assert_eq!(ChatTemplate::from_jinja("[INST]").render_user("x"), None);
    }
}
