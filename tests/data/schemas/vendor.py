#!/usr/bin/python3
"""Re-create the vendored schemas in tests/data/schemas/ from upstream git checkouts.

Reads upstream files straight out of git (`git --git-dir=DIR show REV:PATH`), so a bare
mirror or an ordinary clone both work. Needs only python3 + PyYAML. Every upstream input is
pinned by commit and checked against its git blob id before it is used, so a run either
reproduces the committed files byte for byte or fails.

    /usr/bin/python3 tests/data/schemas/vendor.py \
        --kubectl-validate-git ~/src/kubectl-validate/.git \
        --keda-git ~/src/keda/.git --lws-git ~/src/lws/.git \
        --prometheus-operator-git ~/src/prometheus-operator/.git \
        --keda-http-add-on-git ~/src/http-add-on/.git \
        --dra-driver-git ~/src/k8s-dra-driver-gpu/.git \
        [--out tests/data/schemas] [--check]

Kubernetes: the OpenAPI v3 documents are kubernetes/kubernetes `api/openapi-spec/v3/*.json`
of branch release-1.33. kubernetes/kubernetes is too large to mirror in our tooling, so they
are read from kubernetes-sigs/kubectl-validate, which stores the raw bytes of those files
(downloaded with the GitHub contents API, `ref=release-1.33`, by its
cmd/download-builtin-schemas) under pkg/openapiclient/builtins/1.33/. Alternatively pass
`--kubernetes-git DIR --kubernetes-rev REV`: the files are then read from kubernetes/kubernetes
itself and must have the same blob ids (the blob id is a hash of the content only).

Trimming (documented in README.md):
  * Kubernetes: keep `openapi`, `info` and only the `components.schemas` entries in the
    transitive `$ref` closure of the kinds we validate; drop `paths`.
  * CRDs: keep only `spec.versions[name=V].schema.openAPIV3Schema`, converted YAML -> JSON.
  * Everywhere: drop every `description` keyword (documentation only; it is ~70% of the
    bytes). Nothing else is changed: strictness (additionalProperties: false) is added by
    the validator at load time, not here.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys

import yaml

KUBECTL_VALIDATE = {
    "repo": "kubernetes-sigs/kubectl-validate",
    # "feat: upgrade to kubernetes 1.35", 2025-12-23; adds builtins/1.33 = release-1.33 as of then.
    "commit": "9431c46daf3fdcbdcc480134767eafdd990f8fc5",
    "k8s_minor": "1.33",
}

# Kubernetes document -> (kubectl-validate group-version path, upstream git blob id, root kinds).
K8S_DOCS = {
    "apis__apps__v1_openapi.json": (
        "apis/apps/v1", "d44a2e4c2d1b5572e61e1bcb43feb99907114ed4",
        ["io.k8s.api.apps.v1.Deployment"]),
    "api__v1_openapi.json": (
        "api/v1", "9a4346d00cec566830210a74197eae4833bf9204",
        ["io.k8s.api.core.v1.Service", "io.k8s.api.core.v1.ConfigMap",
         "io.k8s.api.core.v1.PersistentVolumeClaim"]),
    "apis__policy__v1_openapi.json": (
        "apis/policy/v1", "5966b737af0565cc0ec5440990caa5e29c725734",
        ["io.k8s.api.policy.v1.PodDisruptionBudget"]),
    "apis__autoscaling__v2_openapi.json": (
        "apis/autoscaling/v2", "8e245523e2e5af24a57bb60b1a11113f938bec6e",
        ["io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"]),
}

CRDS = {
    "keda.sh_scaledobjects_v1alpha1.json": {
        "repo": "kedacore/keda", "arg": "keda_git", "tag": "v2.20.2",
        "commit": "68a5b5028f35b22d50597c69819ab32c4e92f21a",
        "path": "config/crd/bases/keda.sh_scaledobjects.yaml", "version": "v1alpha1",
        "blob": "f0302424ebce7f1903433910ae7a978c73ae85f3"},
    "leaderworkerset.x-k8s.io_leaderworkersets_v1.json": {
        "repo": "kubernetes-sigs/lws", "arg": "lws_git", "tag": "v0.10.0",
        "commit": "2161f38ff333f9e24d3c44adef7cd5d9787cac00",
        "path": "config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml",
        "version": "v1", "blob": "2b376d69063e46bec99d0d815d36948cdc87d128"},
    "disaggregatedset.x-k8s.io_disaggregatedsets_v1.json": {
        "repo": "kubernetes-sigs/lws", "arg": "lws_git", "tag": "v0.10.0",
        "commit": "2161f38ff333f9e24d3c44adef7cd5d9787cac00",
        "path": "config/crd/bases/disaggregatedset.x-k8s.io_disaggregatedsets.yaml",
        "version": "v1", "blob": "5428521404e2cd20cb7dcb1b4743e8f097f725d0"},
    "monitoring.coreos.com_podmonitors_v1.json": {
        "repo": "prometheus-operator/prometheus-operator", "arg": "prometheus_operator_git",
        "tag": "v0.93.0", "commit": "f8fafd475f3d132e239432ae6172de60a6cb6516",
        "path": "example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml",
        "version": "v1", "blob": "5c1bde3d4a5f3131fd6c148ab933193b867173f2"},
    "resource.nvidia.com_computedomains_v1beta1.json": {
        "repo": "NVIDIA/k8s-dra-driver-gpu", "arg": "dra_driver_git", "tag": "v0.4.0",
        "commit": "6910a2bea298933cf64cfb061ddf88b6e17743ff",
        "path": "deployments/helm/dra-driver-nvidia-gpu/crds/resource.nvidia.com_computedomains.yaml",
        "version": "v1beta1", "blob": "0811b3ce2c8e38dad3db6b8df309a43d33a475b9"},
    "http.keda.sh_httpscaledobjects_v1alpha1.json": {
        "repo": "kedacore/http-add-on", "arg": "keda_http_add_on_git", "tag": "v0.15.0",
        "commit": "4ea8a863bd7c16464dc5afbe9ebc8a26e563fac0",
        "path": "config/crd/bases/http.keda.sh_httpscaledobjects.yaml",
        "version": "v1alpha1", "blob": "e7540b926d16ba88b0b2661458ecb6bbadb0b43c"},
}

# Written next to the outputs: where every vendored file came from (generated, do not edit).
SOURCES_FILE = "SOURCES.json"


def git_show(git_dir, rev, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{rev}:{path}"],
                          check=True, stdout=subprocess.PIPE).stdout


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


# Keywords whose value is a schema / a list of schemas / a map of name -> schema.
_SUB_SCHEMA = {"items", "additionalProperties", "not"}
_SUB_SCHEMA_LIST = {"allOf", "anyOf", "oneOf"}
_SUB_SCHEMA_MAP = {"properties", "patternProperties"}


def strip_descriptions(schema):
    """Drop the `description` keyword of `schema` and of its sub-schemas.

    Schema-aware: a property that is *named* "description", and values of `default`,
    `enum`, `example`, `x-kubernetes-*`, are left alone."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for k, v in schema.items():
        if k == "description":
            continue
        if k in _SUB_SCHEMA:
            v = strip_descriptions(v)
        elif k in _SUB_SCHEMA_LIST:
            v = [strip_descriptions(x) for x in v]
        elif k in _SUB_SCHEMA_MAP:
            v = {name: strip_descriptions(x) for name, x in v.items()}
        out[k] = v
    return out


def refs_in(node, out):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.add(ref)
        for v in node.values():
            refs_in(v, out)
    elif isinstance(node, list):
        for v in node:
            refs_in(v, out)


def trim_openapi(doc, roots):
    schemas = doc["components"]["schemas"]
    prefix = "#/components/schemas/"
    keep, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        if name not in schemas:
            raise SystemExit(f"vendor.py: {name} not found in document")
        keep.add(name)
        refs = set()
        refs_in(schemas[name], refs)
        for ref in refs:
            if not ref.startswith(prefix):
                raise SystemExit(f"vendor.py: unsupported $ref {ref}")
            todo.append(ref[len(prefix):])
    return {
        "openapi": doc["openapi"],
        "info": doc["info"],
        "components": {"schemas": {k: strip_descriptions(schemas[k]) for k in sorted(keep)}},
    }


def dump(obj):
    return (json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kubectl-validate-git")
    ap.add_argument("--kubernetes-git")
    ap.add_argument("--kubernetes-rev", default="release-1.33")
    ap.add_argument("--keda-git", required=True)
    ap.add_argument("--lws-git", required=True)
    ap.add_argument("--prometheus-operator-git", required=True)
    ap.add_argument("--keda-http-add-on-git", required=True)
    ap.add_argument("--dra-driver-git", required=True)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary dir and compare with --out")
    args = ap.parse_args()
    if bool(args.kubectl_validate_git) == bool(args.kubernetes_git):
        ap.error("give exactly one of --kubectl-validate-git / --kubernetes-git")

    outputs = {}
    sources = []
    for out_name, (gv_path, want_blob, roots) in K8S_DOCS.items():
        k8s_path = "api/openapi-spec/v3/" + out_name
        if args.kubernetes_git:
            raw = git_show(args.kubernetes_git, args.kubernetes_rev, k8s_path)
            via = {"read_from": "kubernetes/kubernetes", "rev": args.kubernetes_rev,
                   "path": k8s_path}
        else:
            kv_path = f"pkg/openapiclient/builtins/{KUBECTL_VALIDATE['k8s_minor']}/{gv_path}.json"
            raw = git_show(args.kubectl_validate_git, KUBECTL_VALIDATE["commit"], kv_path)
            via = {"read_from": KUBECTL_VALIDATE["repo"], "rev": KUBECTL_VALIDATE["commit"],
                   "path": kv_path}
        rel = "kubernetes/" + out_name
        check_blob(rel, raw, want_blob)
        outputs[rel] = dump(trim_openapi(json.loads(raw), roots))
        sources.append({
            "file": rel, "upstream_repo": "kubernetes/kubernetes",
            "upstream_ref": "release-" + KUBECTL_VALIDATE["k8s_minor"],
            "upstream_path": k8s_path, "upstream_blob": want_blob, **via,
            "trim": "components.schemas closure of " + ", ".join(roots)
                    + "; paths and descriptions dropped"})

    for out_name, c in CRDS.items():
        raw = git_show(getattr(args, c["arg"]), c["commit"], c["path"])
        rel = "crds/" + out_name
        check_blob(rel, raw, c["blob"])
        crd = yaml.safe_load(raw)
        versions = [v for v in crd["spec"]["versions"] if v["name"] == c["version"]]
        if len(versions) != 1:
            raise SystemExit(f"vendor.py: {c['path']}: version {c['version']} not found")
        outputs[rel] = dump(strip_descriptions(versions[0]["schema"]["openAPIV3Schema"]))
        sources.append({
            "file": rel, "upstream_repo": c["repo"], "upstream_ref": c["tag"],
            "upstream_path": c["path"], "upstream_blob": c["blob"], "read_from": c["repo"],
            "rev": c["commit"], "path": c["path"],
            "trim": f"spec.versions[name={c['version']}].schema.openAPIV3Schema, YAML->JSON; "
                    "descriptions dropped"})

    for s in sources:
        s["sha256"] = hashlib.sha256(outputs[s["file"]]).hexdigest()
    outputs[SOURCES_FILE] = dump({
        "generated_by": "tests/data/schemas/vendor.py (see README.md)", "files": sources})

    if args.check:
        bad = 0
        for rel, data in outputs.items():
            path = os.path.join(args.out, rel)
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                print(f"vendor.py --check: {rel} differs from a fresh run", file=sys.stderr)
                bad = 1
        if not bad:
            print(f"vendor.py --check: {len(outputs)} files identical to a fresh run")
        return bad

    for rel, data in outputs.items():
        path = os.path.join(args.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        print(f"wrote {rel} ({len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:16]}…)")
    return 0


def check_blob(rel, raw, want):
    got = blob_id(raw)
    if want != got:
        raise SystemExit(f"vendor.py: {rel}: upstream blob {got} != pinned {want} "
                         "(different upstream content; update the pins in vendor.py deliberately)")


if __name__ == "__main__":
    sys.exit(main())
