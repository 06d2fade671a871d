// LlamaConfig and the classes that read as it does: MistralConfig (a sliding window on every
// layer when sliding_window is set), MixtralConfig (experts on every layer), Phi3Config.

#include "decoder.hpp"

namespace rightsize::hf {

void read_llama(const ConfigInput& in, ModelArch& m) {
  read_decoder(in, m, DecoderFamily{});
}

} // namespace rightsize::hf
