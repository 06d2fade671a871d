// Encoder-only (BERT, XLM-R, DistilBERT, ModernBERT) and encoder-decoder (T5, mT5, UMT5,
// Whisper) models.

#include "provenance.hpp"
#include "test_paths.hpp"

#include <rightsize/model/model.hpp>
#include <rightsize/spec/spec.hpp>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace rightsize;
using rightsize::test::config_path;
using rightsize::test::provenance_of;

namespace {

ModelArch model_of(const std::string& name) {
  return load_spec(config_path(name), SpecUse::describe).model;
}

} // namespace

// Issue 16: encoder-only models, read as the base model an embedding server loads (BERT-base was
// planned as a gated decoder of 0.137B). Hand-derived totals (docs/model.md, "Encoder-only
// models"); the published figure within 0.5%, or within its rounding when it has two digits.
TEST_CASE("model: BERT, XLM-R, DistilBERT and ModernBERT parameters", "[model]") {
  struct Case {
    const char* model;
    double exact;
    double published;
    double published_unit; // the published figure's last digit
    long long context, token_types;
  };
  const Case cases[] = {
      // Embeddings 30522x768 + 512x768 + 2x768 + LayerNorm 2x768 = 23,837,184; per layer q/k/v/o
      // 4 x (768x768 + 768) + MLP 768x3072 + 3072 + 3072x768 + 768 + 2 LayerNorms 2 x 1536 =
      // 7,087,872, x 12; pooler 768x768 + 768 = 590,592 (BERT-base: 110M).
      {"encoder/bert-base-uncased", 109'482'240, 110e6, 1e6, 512, 2},
      // The cased vocabulary, 28996 rows.
      {"encoder/bert-base-cased", 108'310'272, 108e6, 1e6, 512, 2},
      // 384 wide, 6 layers of 1,774,464, MLP 1536 (all-MiniLM-L6-v2: 22.7M).
      {"encoder/all-minilm-l6-v2", 22'713'216, 22.7e6, 0.1e6, 512, 2},
      // 250002 x 768 + 514 positions + 1 token type; positions start after pad_token_id 1: 512.
      {"encoder/xlm-roberta-base", 278'043'648, 278e6, 1e6, 512, 1},
      // XLM-R large shape, 8194 positions (BGE-M3: 568M, 8192-token inputs).
      {"encoder/bge-m3", 567'754'752, 568e6, 1e6, 8192, 1},
      // No token types, no pooler: 23,835,648 + 6 x 7,087,872 (DistilBERT: 66M).
      {"encoder/distilbert-base-uncased", 66'362'880, 66e6, 1e6, 512, 0},
      // Tied 50368x768 embedding; per layer Wqkv 768x2304, Wo 768x768, GeGLU Wi 768x2304 and Wo
      // 1152x768, two bias-free norms (none before layer 0's attention); embedding and final
      // norms (ModernBERT-base: 149M).
      {"encoder/modernbert-base", 149'014'272, 149e6, 1e6, 8192, 0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model);
    const auto m = model_of(c.model);
    CHECK(m.encoder_only);
    CHECK(m.params_total == c.exact);
    CHECK(m.params_total == Approx(c.published).epsilon(0.005).margin(c.published_unit / 2));
    CHECK(m.params_active == m.params_total);
    CHECK(m.params.lm_head == 0);
    CHECK(m.max_position == c.context);
    CHECK(m.token_types == c.token_types);
    CHECK(m.kv_heads == m.heads);
  }
  const auto bert = model_of("encoder/bert-base-uncased");
  CHECK(bert.params.pooler == 768.0 * 768 + 768);
  CHECK_FALSE(bert.gated_mlp);
  const auto modern = model_of("encoder/modernbert-base");
  CHECK(modern.params.pooler == 0);
  CHECK(modern.gated_mlp);
  // Global attention on layers 0, 3, ..., 21; a 128-token window on the other 14.
  CHECK(modern.sliding_window == 128);
  CHECK(modern.local_layers() == 14);
  // Relative position embeddings add per-layer tables rightsize does not count: refused.
  auto relative = nlohmann::json::parse(R"({"model_type": "bert", "hidden_size": 768,
      "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
      "vocab_size": 30522, "position_embedding_type": "relative_key"})");
  CHECK_THROWS_WITH(parse_hf_config(relative, "c.json"),
                    "c.json:/position_embedding_type: relative position embeddings are not "
                    "modelled; rightsize reads \"absolute\", got \"relative_key\"");
}

// Issue 16: encoder-decoder models, read as T5ForConditionalGeneration,
// MT5ForConditionalGeneration and WhisperForConditionalGeneration build them (both stacks, the
// decoder's cross-attention, the lm_head when untied). Hand-derived totals (docs/model.md,
// "Encoder-decoder models"); the published figure within 0.5%.
TEST_CASE("model: T5, Flan-T5, mT5 and Whisper parameters", "[model]") {
  struct Case {
    const char* model;
    double exact;
    double published;
    long long encoder, decoder;
    double cross_attention;
  };
  const Case cases[] = {
      // Shared embedding 32128x512 = 16,449,536 (lm_head tied). Encoder layer: q/k/v/o
      // 4 x 512x512 = 1,048,576, ReLU MLP 2 x 512x2048 = 2,097,152, 2 norms 1,024: 3,146,752,
      // x 6 = 18,880,512; decoder layer: + cross-attention 1,048,576 + a norm 512: 4,195,840,
      // x 6 = 25,175,040; relative bias 32x8 in each stack's first layer 2 x 256; final norms
      // 2 x 512. 16,449,536 + 18,880,512 + 25,175,040 + 512 + 1,024 = 60,506,624 (60.5M).
      {"encdec/t5-small", 60'506'624, 60.5e6, 6, 6, 6 * 1'048'576.0},
      // Embedding and lm_head 2 x 32128x768 = 49,348,608. Encoder layer: 4 x 768x768 =
      // 2,359,296, gated-GELU MLP 3 x 768x2048 = 4,718,592, 2 norms 1,536: 7,079,424, x 12 =
      // 84,953,088; decoder layer 9,439,488 (+ cross-attention 2,359,296 and a norm 768), x 12 =
      // 113,273,856; bias tables 2 x 32x12 = 768; final norms 1,536. Total 247,577,856 (248M).
      {"encdec/flan-t5-base", 247'577'856, 248e6, 12, 12, 12 * 2'359'296.0},
      // 2 x 32128x1024 = 65,798,144; encoder layer 4,194,304 + 3 x 1024x2816 = 8,650,752 +
      // 2,048 = 12,847,104, x 24 = 308,330,496; decoder layer 17,042,432, x 24 = 409,018,368;
      // bias tables 2 x 32x16 = 1,024; final norms 2,048. Total 783,150,080 (783M).
      {"encdec/flan-t5-large", 783'150'080, 783e6, 24, 24, 24 * 4'194'304.0},
      // heads x d_kv = 6 x 64 = 384 of d_model 512: q/k/v 3 x 512x384 + o 384x512 = 786,432.
      // Embedding and lm_head 2 x 250112x512 = 256,114,688; encoder layer 786,432 + 3 x 512x1024
      // = 1,572,864 + 1,024 = 2,360,320, x 8 = 18,882,560; decoder layer 3,147,264, x 8 =
      // 25,178,112; bias tables 2 x 32x6 = 384; final norms 1,024. Total 300,176,768 (300M).
      {"encdec/mt5-small", 300'176'768, 300e6, 8, 8, 8 * 786'432.0},
      // Convolutions 80x384x3 + 384 = 92,544 and 384x384x3 + 384 = 442,752; stored encoder
      // positions 1500x384 = 576,000. Encoder layer: q/k/v/o 4 x 384x384 + q, v, o biases 3 x 384
      // = 590,976, MLP 2 x 384x1536 + 1,536 + 384 = 1,181,568, 2 LayerNorms 1,536: 1,774,080,
      // x 4 = 7,096,320, + final LayerNorm 768. Decoder: tokens 51865x384 = 19,916,160 (tied to
      // the output projection), positions 448x384 = 172,032; layer 2 x 590,976 + 1,181,568 +
      // 3 x 768 = 2,365,824, x 4 = 9,463,296, + 768. Total 37,760,640 (model page: 37.8M).
      {"encdec/whisper-tiny", 37'760'640, 37.8e6, 4, 4, 4 * 590'976.0},
      // 128 mel bins: convolutions 128x1280x3 + 1,280 = 492,800 and 1280x1280x3 + 1,280 =
      // 4,916,480; encoder positions 1500x1280 = 1,920,000; encoder layer 6,557,440 + 13,113,600
      // + 5,120 = 19,676,160, x 32 = 629,637,120, + 2,560; tokens 51866x1280 = 66,388,480,
      // positions 448x1280 = 573,440; decoder layer 2 x 6,557,440 + 13,113,600 + 7,680 =
      // 26,236,160, x 32 = 839,557,120, + 2,560. Total 1,543,490,560, the checkpoint's count.
      {"encdec/whisper-large-v3", 1'543'490'560, 1.5435e9, 32, 32, 32 * 6'557'440.0},
  };
  for (const auto& c : cases) {
    CAPTURE(c.model);
    const auto m = model_of(c.model);
    CHECK(m.encoder_decoder);
    CHECK_FALSE(m.encoder_only);
    CHECK(m.params_total == c.exact);
    CHECK(m.params.total() == c.exact);
    CHECK(m.params_total == Approx(c.published).epsilon(0.005));
    CHECK(m.params_active == m.params_total);
    CHECK(m.layers == c.encoder);
    CHECK(m.decoder_layers == c.decoder);
    CHECK(m.params.cross_attention == c.cross_attention);
    CHECK(m.kv_heads == m.heads);
  }
  const auto t5 = model_of("encdec/t5-small");
  CHECK(t5.tied_embeddings);
  CHECK(t5.params.lm_head == 0);
  CHECK_FALSE(t5.gated_mlp);
  CHECK(t5.max_position == 0); // relative positions: no limit
  CHECK(t5.torch_dtype == DType::fp32);
  const auto flan = model_of("encdec/flan-t5-base");
  CHECK_FALSE(flan.tied_embeddings);
  CHECK(flan.params.lm_head == 32128.0 * 768);
  CHECK(flan.gated_mlp);
  CHECK(flan.relative_bias_tables == 2);
  const auto mt5 = model_of("encdec/mt5-small");
  CHECK(mt5.head_dim * mt5.heads == 384);
  const auto whisper = model_of("encdec/whisper-large-v3");
  CHECK(whisper.params.audio == 492'800.0 + 4'916'480);
  CHECK(whisper.params.embedding == 1'920'000.0 + 66'388'480 + 573'440);
  CHECK(whisper.params.lm_head == 0);
  CHECK(whisper.max_position == 448);
  CHECK(whisper.encoder_positions == 1500);
  CHECK(whisper.mel_bins == 128);
  CHECK(whisper.relative_bias_tables == 0);
  // In fp16, as published: 2 bytes a parameter, the convolutions and cross-attention included.
  const auto large = load_spec(config_path("encdec/whisper-large-v3"), SpecUse::describe);
  CHECK(weight_bytes(large.model, large.weights).total().si() == 2.0 * 1'543'490'560);
}

TEST_CASE("model: encoder-decoder configs, defaults and refusals", "[model]") {
  // UMT5 (umt5-small's shape): a relative bias table in every self-attention layer, 8 + 8 of
  // 32x6, where T5 and mT5 have 2; untied. Embedding and lm_head 2 x 256384x512 = 262,537,216;
  // layers as mT5-small's (18,882,560 + 25,178,112); tables 16 x 192 = 3,072; final norms 1,024.
  const auto umt5 = parse_hf_config(nlohmann::json::parse(R"({"model_type": "umt5",
      "d_model": 512, "d_kv": 64, "d_ff": 1024, "num_layers": 8, "num_heads": 6,
      "vocab_size": 256384, "tie_word_embeddings": false})"),
                                    "u.json");
  CHECK(umt5.relative_bias_tables == 16);
  CHECK(umt5.decoder_layers == 8); // num_decoder_layers absent: num_layers
  CHECK(umt5.gated_mlp);           // UMT5Config's default feed_forward_proj: gated-gelu
  CHECK(umt5.params_total == 262'537'216.0 + 18'882'560 + 25'178'112 + 3'072 + 1'024);
  // mT5's configuration class defaults to an untied lm_head, T5's to a tied one.
  const auto untied = parse_hf_config(nlohmann::json::parse(R"({"model_type": "mt5",
      "d_model": 512, "d_ff": 1024, "num_layers": 8, "num_heads": 6, "vocab_size": 250112})"),
                                      "m.json");
  CHECK_FALSE(untied.tied_embeddings);
  CHECK(untied.params_total == 300'176'768);
  auto t5 = nlohmann::json::parse(R"({"model_type": "t5", "d_model": 512, "d_ff": 2048,
      "num_layers": 6, "num_heads": 8, "vocab_size": 32128})");
  CHECK(parse_hf_config(t5, "t.json").params_total == 60'506'624);
  t5["feed_forward_proj"] = "gelu-gated";
  CHECK_THROWS_WITH(parse_hf_config(t5, "t.json"),
                    "t.json:/feed_forward_proj: must be an activation (\"relu\") or \"gated-\" and "
                    "one (\"gated-gelu\"), got \"gelu-gated\"");
  // Whisper: one width for both stacks; WhisperConfig's defaults recorded as assumed.
  auto whisper = nlohmann::json::parse(R"({"model_type": "whisper", "d_model": 384,
      "encoder_layers": 4, "decoder_layers": 4, "encoder_attention_heads": 6,
      "encoder_ffn_dim": 1536, "vocab_size": 51865})");
  const auto tiny = parse_hf_config(whisper, "w.json");
  CHECK(tiny.params_total == 37'760'640);
  CHECK(provenance_of(tiny, "mel_bins") == "assumed: WhisperConfig's default num_mel_bins = 80");
  whisper["decoder_ffn_dim"] = 2048;
  CHECK_THROWS_WITH(parse_hf_config(whisper, "w.json"),
                    "w.json:/decoder_ffn_dim: must equal the encoder's (1536): rightsize reads "
                    "one width for both stacks, got 2048");
}
