// The patches of re-sized owners (observe/patches.hpp) and their YAML (render/observe.hpp):
// which workloads get one, the GPUs per pod or the replicas, the resource and node label of the
// recommended GPU, and why the others get none. docs/observe.md, "Something to apply".

#include <rightsize/observe/patches.hpp>
#include <rightsize/render/observe.hpp>

#include <catch2/catch.hpp>

#include <string>

using namespace rightsize;

namespace {

GpuProducts products() {
  GpuProducts p;
  p["H100-SXM-80GB"] = {"nvidia.com/gpu", "nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"};
  p["L4-24GB"] = {"nvidia.com/gpu", "nvidia.com/gpu.product", "NVIDIA-L4"};
  p["A100-SXM-80GB"] = {"nvidia.com/gpu", "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"};
  return p;
}

WorkloadObservation resized(const std::string& kind, int gpus, int pods, int recommended) {
  WorkloadObservation w;
  w.name = "team-a/" + kind + "/llm";
  w.owner = WorkloadOwner{"team-a", kind, "llm", "server"};
  w.gpu = "H100-SXM-80GB";
  w.gpus = gpus;
  w.pods = pods;
  w.verdict = "over-provisioned";
  ObserveRecommendation r;
  r.gpu = "L4-24GB";
  r.gpus = recommended;
  r.text = "the need fits";
  w.recommendation = r;
  return w;
}

OwnerPatches patches_of(const WorkloadObservation& w) {
  ObserveReport report;
  report.workloads.push_back(w);
  return owner_patches(report, products());
}

} // namespace

TEST_CASE("patches: GPUs per pod, node label and resource of the recommended GPU",
          "[observe][patches]") {
  // Two pods of two H100s each; four L4s: two per pod, the replicas kept.
  const auto out = patches_of(resized("Deployment", 4, 2, 4));
  REQUIRE(out.patches.size() == 1);
  CHECK(out.skipped.empty());
  const OwnerPatch& p = out.patches.front();
  CHECK(p.file_name == "deployment-team-a-llm.yaml");
  CHECK(p.per_pod == 2);
  CHECK_FALSE(p.replicas);
  CHECK(p.resource == "nvidia.com/gpu");
  CHECK(p.old_resource.empty());
  CHECK(p.node_label == "nvidia.com/gpu.product");
  CHECK(p.node_value == "NVIDIA-L4");
  CHECK(p.pod_spec_path == std::vector<std::string>{"spec", "template", "spec"});
  CHECK(owner_patch_yaml(p) ==
        "# rightsize observe: team-a/Deployment/llm is over-provisioned: the need fits\n"
        "# kubectl patch deployment llm -n team-a --patch-file deployment-team-a-llm.yaml\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      nodeSelector:\n"
        "        nvidia.com/gpu.product: \"NVIDIA-L4\"\n"
        "      containers:\n"
        "        - name: \"server\"\n"
        "          resources:\n"
        "            limits:\n"
        "              nvidia.com/gpu: 2\n"
        "            requests:\n"
        "              nvidia.com/gpu: 2\n");
}

TEST_CASE("patches: fewer replicas of one GPU, a MIG slice, a CronJob", "[observe][patches]") {
  // Three pods of one GPU each; two GPUs cover them: two replicas.
  auto out = patches_of(resized("StatefulSet", 3, 3, 2));
  REQUIRE(out.patches.size() == 1);
  CHECK(out.patches.front().replicas == 2);
  CHECK(out.patches.front().per_pod == 1);
  CHECK(owner_patch_yaml(out.patches.front()).find("spec:\n  replicas: 2\n  template:\n") !=
        std::string::npos);

  // One pod on a whole A100 moved to a 3g.40gb slice: the slice's resource, the GPU's removed.
  auto w = resized("Deployment", 1, 1, 1);
  w.recommendation->gpu = "A100-SXM-80GB";
  w.recommendation->partition = "3g.40gb";
  out = patches_of(w);
  REQUIRE(out.patches.size() == 1);
  CHECK(out.patches.front().resource == "nvidia.com/mig-3g.40gb");
  CHECK(out.patches.front().old_resource == "nvidia.com/gpu");
  CHECK(owner_patch_yaml(out.patches.front()).find("nvidia.com/gpu: ~\n") != std::string::npos);

  out = patches_of(resized("CronJob", 1, 1, 1));
  REQUIRE(out.patches.size() == 1);
  CHECK(out.patches.front().pod_spec_path ==
        std::vector<std::string>{"spec", "jobTemplate", "spec", "template", "spec"});
}

TEST_CASE("patches: none, and why", "[observe][patches]") {
  const auto why = [](const WorkloadObservation& w) {
    const auto out = patches_of(w);
    CHECK(out.patches.empty());
    return out.skipped.empty() ? std::string("(none)") : out.skipped.front();
  };
  auto w = resized("Deployment", 4, 2, 4);
  w.owner.reset();
  CHECK(why(w) == "team-a/Deployment/llm: no patch: not a Kubernetes owner's pods "
                  "(kube-state-metrics' owners, --group-by owner)");
  CHECK(why(resized("Job", 1, 1, 1)) ==
        "team-a/Job/llm: no patch: a Job's pod template cannot change; change what creates it");
  CHECK(why(resized("LeaderWorkerSet", 4, 2, 2)).find("is a custom resource") != std::string::npos);
  CHECK(why(resized("Deployment", 4, 2, 3)) ==
        "team-a/Deployment/llm: no patch: 3 GPUs do not divide among its 2 pods; choose the "
        "replicas and GPUs per pod by hand");
  w = resized("Deployment", 1, 1, 1);
  w.recommendation->gpu = "TPU-v6e";
  CHECK(why(w) == "team-a/Deployment/llm: no patch: TPU-v6e has no node label in "
                  "data/deploy.json's gpu_products");
  w = resized("Deployment", 1, 1, 1);
  w.owner->container.clear();
  CHECK(why(w).find("does not name the container") != std::string::npos);
  // Right-sized and idle workloads are left alone, silently.
  w = resized("Deployment", 1, 1, 1);
  w.verdict = "right-sized";
  CHECK(patches_of(w).patches.empty());
  CHECK(patches_of(w).skipped.empty());
}
