// The encoder-decoder workloads: Whisper transcription (docs/spec.md, "Transcription") and T5
// text-to-text generation (docs/spec.md, "Text-to-text generation").

#include "reader.hpp"

#include <rightsize/spec/engine_traits.hpp>

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace rightsize::spec_reader {

using detail::Range;

namespace {

// A transcription workload (Whisper): each request's audio is cut into windows of what the
// encoder reads (max_source_positions x 2 mel frames of 10 ms: 30 s), each window one sequence:
// an encoder pass, then the decoder's task prompt and output_tokens decoded; a request's windows
// run one after another (docs/spec.md "Transcription"). Fields of other workloads are refused by
// name.
constexpr long long k_whisper_prompt_tokens = 4; // <|startoftranscript|><|lang|><|transcribe|>
                                                 // <|notimestamps|>
constexpr long long k_default_window_tokens = 100;
constexpr double k_mel_frames_per_s = 100; // WhisperFeatureExtractor: hop 160 at 16 kHz
constexpr double k_encoder_stride = 2;     // the second convolution's stride

} // namespace

bool plans_transcription(const ModelArch& m) {
  return m.encoder_decoder && m.mel_bins > 0 && m.encoder_positions > 0;
}

namespace {

void refuse_transcription_fields(const FieldReader& r, const std::string& family) {
  static const std::vector<std::pair<const char*, const char*>> refused{
      {"input_tokens",
       "a transcription request sends audio, not a prompt: give audio_seconds (the decoder's "
       "prompt is Whisper's {} task tokens)"},
      {"images_per_request", "{} transcribes audio: a transcription workload has no images"},
      {"image_width", "{} transcribes audio: a transcription workload has no images"},
      {"image_height", "{} transcribes audio: a transcription workload has no images"}};
  for (const auto& [field, why] : refused) {
    if (r.has(field)) {
      r.member(field).fail_plain(fmt::format(fmt::runtime(why),
                                             std::string_view(field) == "input_tokens"
                                                 ? std::to_string(k_whisper_prompt_tokens)
                                                 : family));
    }
  }
}

void read_transcription_targets(const FieldReader& r, InferenceTargets& t, Transcription& a) {
  static const std::vector<std::pair<const char*, const char*>> refused{
      {"ttft_ms",
       "a transcription request's latency is latency_ms (arrival to the whole transcript); "
       "Whisper streams no first token"},
      {"tpot_ms",
       "a transcription request's latency is latency_ms (arrival to the whole "
       "transcript)"},
      {"output_tokens_per_s", "a transcription workload's throughput is audio_seconds_per_s"},
      {"requests_per_s",
       "a transcription workload's throughput is audio_seconds_per_s (requests per second x "
       "audio_seconds)"},
      {"sequences_per_s", "a transcription workload's throughput is audio_seconds_per_s"}};
  for (const auto& [field, why] : refused) {
    if (r.has(field)) {
      r.member(field).fail_plain(why);
    }
  }
  r.reject_unknown({"audio_seconds_per_s", "latency_ms"});
  a.audio_seconds_per_s = r.optional_number("audio_seconds_per_s", Range::positive(1e12));
  if (a.audio_seconds_per_s) {
    // The machinery holds windows per second.
    t.requests_per_s = *a.audio_seconds_per_s / a.audio_per_window();
  }
  if (auto ms = r.optional_number("latency_ms", Range::positive(1e9))) {
    t.ttft = milliseconds(*ms);
  }
}

} // namespace

void read_transcription(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  const ModelArch& m = spec.model;
  Transcription a;
  a.window_seconds =
      static_cast<double>(m.encoder_positions) * k_encoder_stride / k_mel_frames_per_s;
  a.audio_seconds = a.window_seconds;
  w.input_tokens = k_whisper_prompt_tokens;
  w.output_tokens = k_default_window_tokens;
  // What the decoder holds: its prompt and the tokens decoded, within max_target_positions.
  const long long most = m.max_position - k_whisper_prompt_tokens;
  if (most < 1) {
    throw InputError(spec.file,
                     fmt::format("{} holds {} decoder positions, too few for its {} "
                                 "task tokens and one output token",
                                 m.family,
                                 m.max_position,
                                 k_whisper_prompt_tokens));
  }
  bool given_tokens = false;
  bool given_audio = false;
  if (workload) {
    const FieldReader& r = *workload;
    refuse_transcription_fields(r, m.family);
    r.reject_unknown({"type",
                      "audio_seconds",
                      "output_tokens",
                      "concurrency",
                      "engine",
                      "gpu_memory_utilization",
                      "max_num_batched_tokens",
                      "max_num_seqs",
                      "max_model_len",
                      "chunked_prefill",
                      "engine_version",
                      "length_low_ratio",
                      "targets"});
    read_serving_engine(r, w);
    if (const auto refused = transcription_engine_refusal(w.engine)) {
      r.member("engine").fail(*refused);
    }
    if (auto s = r.optional_number("audio_seconds", Range::positive(1e6))) {
      a.audio_seconds = *s;
      given_audio = true;
    }
    if (r.has("output_tokens")) {
      const long long n = r.integer("output_tokens", Range{1, limits::k_max_tokens});
      if (n > most) {
        r.member("output_tokens")
            .fail_plain(fmt::format("{} output tokens per {:g} s window exceed what {}'s decoder "
                                    "holds: {} positions (max_target_positions) less its {} task "
                                    "tokens, at most {}",
                                    n,
                                    a.window_seconds,
                                    m.family,
                                    m.max_position,
                                    k_whisper_prompt_tokens,
                                    most));
      }
      w.output_tokens = n;
      given_tokens = true;
    }
    a.windows = static_cast<long long>(std::ceil(a.audio_seconds / a.window_seconds));
    a.requests_in_flight = w.concurrency.value_or(0);
    if (auto t = r.optional_object("targets")) {
      read_transcription_targets(*t, w.targets, a);
    }
  }
  a.windows = static_cast<long long>(std::ceil(a.audio_seconds / a.window_seconds));
  if (!given_audio) {
    spec.defaults.push_back(fmt::format(
        "workload.audio_seconds = {:g} (default for a transcription workload: one window)",
        a.audio_seconds));
  }
  if (!given_tokens) {
    spec.defaults.push_back(fmt::format(
        "workload.output_tokens = {} per {:g} s window (default: about 150 spoken words a "
        "minute at 1.3 tokens a word, with punctuation and the end token)",
        w.output_tokens,
        a.window_seconds));
  }
  if (a.windows > 1) {
    spec.defaults.push_back(fmt::format("{:g} s of audio per request: {} windows of {:g} s, "
                                        "transcribed one after another",
                                        a.audio_seconds,
                                        a.windows,
                                        a.window_seconds));
  }
  w.transcription = a;
}

namespace {

// A text-to-text workload (T5, mT5, UMT5: translation, summarization): the generation workload
// as a request sees it (input_tokens in, output_tokens out), mapped onto the sequences the serving
// machinery runs as a Whisper window is (docs/spec.md "Text-to-text generation"): the input is
// what the encoder reads, once per request (encoder_positions of the spec's model), and the
// decoder's prompt is its one start token (decoder_start_token_id, T5's pad token), after which
// it decodes output_tokens. T5's relative position buckets set no length limit; its
// pre-training read 512 tokens (Raffel et al. 2020, section 3.1.2), past which a warning says
// the quality is unmeasured.
constexpr long long k_decoder_start_tokens = 1;
constexpr long long k_text_to_text_input = 512;  // T5's pre-training input length
constexpr long long k_text_to_text_output = 128; // about 100 words: a summary's length

} // namespace

bool plans_text_to_text(const ModelArch& m) {
  return m.encoder_decoder && !plans_transcription(m);
}

void read_text_to_text(Spec& spec, const std::optional<FieldReader>& workload) {
  auto& w = spec.workload.inference;
  w.input_tokens = k_text_to_text_input;
  w.output_tokens = k_text_to_text_output;
  w.engine = Engine::transformers;
  bool input_given = false;
  bool output_given = false;
  bool engine_given = false;
  if (workload) {
    const FieldReader& r = *workload;
    for (const char* key : {"images_per_request", "image_width", "image_height"}) {
      if (r.has(key)) {
        r.member(key).fail_plain(
            fmt::format("{} reads text: a text-to-text workload has no images", spec.model.family));
      }
    }
    if (r.has("length_histogram")) {
      r.member("length_histogram")
          .fail_plain(fmt::format("a text-to-text workload ({}) is planned at one input length "
                                  "(its encoder's): give input_tokens and output_tokens",
                                  spec.model.family));
    }
    read_inference(r, w);
    refuse_decoding_features(r,
                             "rightsize models speculative decoding and prefix caching for "
                             "decoder-only text generation, not for text-to-text models");
    if (const auto refused = text_to_text_engine_refusal(spec.model, w.engine)) {
      r.member("engine").fail(*refused);
    }
    input_given = r.has("input_tokens");
    output_given = r.has("output_tokens");
    engine_given = r.has("engine");
  }
  if (!input_given) {
    spec.defaults.push_back(fmt::format("workload.input_tokens = {} (default for a text-to-text "
                                        "model: T5's pre-training input length)",
                                        w.input_tokens));
  }
  if (!output_given) {
    spec.defaults.push_back(fmt::format("workload.output_tokens = {} (default for a text-to-text "
                                        "model: a summary of about 100 words)",
                                        w.output_tokens));
  }
  if (!engine_given) {
    spec.defaults.push_back(fmt::format("workload.engine = transformers (default for {}: vLLM "
                                        "and SGLang do not run T5)",
                                        spec.model.family));
  }
  if (w.input_tokens > k_text_to_text_input) {
    spec.warnings.push_back(fmt::format(
        "{} input tokens: T5 was pre-trained on {}-token inputs and its relative position "
        "buckets set no limit; memory and time are planned, quality past {} is unmeasured",
        w.input_tokens,
        k_text_to_text_input,
        k_text_to_text_input));
  }
  // The encoder reads the input; the decoder starts from its start token.
  spec.model.encoder_positions = w.input_tokens;
  w.input_tokens = k_decoder_start_tokens;
}

} // namespace rightsize::spec_reader
