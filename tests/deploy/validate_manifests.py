#!/usr/bin/python3
"""Strictly validate multi-document Kubernetes YAML against vendored schemas.

usage: validate_manifests.py SCHEMA_DIR FILE...      (FILE '-' = stdin)

SCHEMA_DIR is tests/data/schemas (see its README.md). Runs with Debian bookworm's
/usr/bin/python3 + python3-yaml + python3-jsonschema (4.10): Draft7Validator + RefResolver only.

Output: one line per error, `FILE: document N (Kind/name): /json/pointer: message`.
Exit 0 if every document is valid (`ok: N documents` on stderr), 1 if any is invalid,
2 on usage, I/O or YAML syntax errors.

What is checked, per document:
  * (apiVersion, kind) is one of the supported pairs; a known kind with another apiVersion
    or an unknown kind is an error;
  * the object against its schema (Kubernetes OpenAPI v3 or CRD openAPIV3Schema: KEDA
    ScaledObject, LeaderWorkerSet, DisaggregatedSet, Prometheus Operator PodMonitor), made
    strict at load time: every object schema with `properties` and no
    `additionalProperties` gets `additionalProperties: false`, except at or below
    `x-kubernetes-preserve-unknown-fields: true`; int-or-string and Quantity accept int or
    string (Quantity strings must parse); int32/int64 ranges are checked;
  * CRD kinds: metadata against the Kubernetes ObjectMeta schema (CRDs only say `object`);
  * metadata.name: DNS-1035 label for Service, LeaderWorkerSet and DisaggregatedSet (whose
    LeaderWorkerSets are named after it) (what the API server /
    LWS webhook enforce), DNS-1123 subdomain otherwise; ScaledObject name and its derived
    HPA name <= 63 (KEDA webhook); namespace: DNS-1123 label;
  * every labels / matchLabels / annotations map anywhere (object, templates, selectors):
    keys are qualified names, label values <= 63 chars matching the label-value regex;
  * ConfigMap labelled app.kubernetes.io/component=prometheus-adapter-config with
    data["config.yaml"]: that YAML against the prometheus-adapter config schema;
  * ScaledObject: metadata of `prometheus` triggers against the KEDA prometheus scaler schema.
Not checked: other `format`s (date-time, ...), CEL rules (x-kubernetes-validations),
list-map key uniqueness, and semantic API-server validation beyond the above.
"""
import json
import os
import re
import sys
import warnings

import jsonschema
import yaml

# RefResolver is what jsonschema 4.10 (Debian bookworm) offers; newer versions deprecate it.
warnings.filterwarnings("ignore", message=r"jsonschema\.RefResolver is deprecated",
                        category=DeprecationWarning)

K8S = "kubernetes/"
CRD = "crds/"
# (apiVersion, kind) -> (schema file, component name or None for a CRD root schema)
KINDS = {
    ("apps/v1", "Deployment"): (K8S + "apis__apps__v1_openapi.json", "io.k8s.api.apps.v1.Deployment"),
    ("v1", "Service"): (K8S + "api__v1_openapi.json", "io.k8s.api.core.v1.Service"),
    ("v1", "ConfigMap"): (K8S + "api__v1_openapi.json", "io.k8s.api.core.v1.ConfigMap"),
    ("v1", "PersistentVolumeClaim"): (
        K8S + "api__v1_openapi.json", "io.k8s.api.core.v1.PersistentVolumeClaim"),
    ("policy/v1", "PodDisruptionBudget"): (
        K8S + "apis__policy__v1_openapi.json", "io.k8s.api.policy.v1.PodDisruptionBudget"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"): (
        K8S + "apis__autoscaling__v2_openapi.json",
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"),
    ("keda.sh/v1alpha1", "ScaledObject"): (CRD + "keda.sh_scaledobjects_v1alpha1.json", None),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): (
        CRD + "leaderworkerset.x-k8s.io_leaderworkersets_v1.json", None),
    ("disaggregatedset.x-k8s.io/v1", "DisaggregatedSet"): (
        CRD + "disaggregatedset.x-k8s.io_disaggregatedsets_v1.json", None),
    ("resource.nvidia.com/v1beta1", "ComputeDomain"): (
        CRD + "resource.nvidia.com_computedomains_v1beta1.json", None),
    ("http.keda.sh/v1alpha1", "HTTPScaledObject"): (
        CRD + "http.keda.sh_httpscaledobjects_v1alpha1.json", None),
    ("monitoring.coreos.com/v1", "PodMonitor"): (
        CRD + "monitoring.coreos.com_podmonitors_v1.json", None),
}
API_VERSION_OF = {kind: av for (av, kind) in KINDS}
OBJECT_META = (K8S + "api__v1_openapi.json", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
PROM_ADAPTER_SCHEMA = "handwritten/prometheus-adapter-config.schema.json"
KEDA_PROM_SCHEMA = "handwritten/keda-prometheus-trigger-metadata.schema.json"
PROM_ADAPTER_LABEL = ("app.kubernetes.io/component", "prometheus-adapter-config")
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

# k8s.io/apimachinery/pkg/util/validation
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
DNS1035_LABEL = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
QUALIFIED_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
# resource.Quantity, as in the pattern controller-gen emits for it
QUANTITY_RE = re.compile(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
                         r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")

_SUB_SCHEMA = ("items", "additionalProperties", "not")
_SUB_SCHEMA_LIST = ("allOf", "anyOf", "oneOf")
_SUB_SCHEMA_MAP = ("properties", "patternProperties", "definitions")


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Schema loading and strictification


def strictify(schema, preserve=False):
    """Return a copy of an OpenAPI-3.0/CRD schema made strict and digestible by Draft 7."""
    if not isinstance(schema, dict):
        return schema
    preserve = preserve or schema.get("x-kubernetes-preserve-unknown-fields") is True
    out = {}
    for k, v in schema.items():
        if k in _SUB_SCHEMA:
            v = strictify(v, preserve)
        elif k in _SUB_SCHEMA_LIST:
            v = [strictify(x, preserve) for x in v]
        elif k in _SUB_SCHEMA_MAP:
            v = {name: strictify(x, preserve) for name, x in v.items()}
        out[k] = v
    if "properties" in out and "additionalProperties" not in out and not preserve:
        out["additionalProperties"] = False
    # int-or-string: builtin IntOrString is {format: int-or-string, oneOf: [int, string]},
    # CRDs say {x-kubernetes-int-or-string: true, anyOf: [int, string]}. One `type` gives
    # clearer messages than oneOf/anyOf.
    if out.get("x-kubernetes-int-or-string") is True or out.get("format") == "int-or-string":
        out.pop("oneOf", None)
        out.pop("anyOf", None)
        out.pop("format", None)
        out["type"] = ["integer", "string"]
    if out.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    # OpenAPI 3.0 / draft 4 boolean exclusiveMinimum/Maximum -> draft 7 numbers
    for ex, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(ex), bool):
            if out.pop(ex) and bound in out:
                out[ex] = out.pop(bound)
    return out


class Schemas:
    def __init__(self, schema_dir):
        self.dir = schema_dir
        self._docs = {}
        self._validators = {}
        self.format_checker = jsonschema.FormatChecker(formats=())
        self.format_checker.checks("k8s-quantity")(
            lambda v: not isinstance(v, str) or QUANTITY_RE.match(v) is not None)
        self.format_checker.checks("int32")(
            lambda v: not isinstance(v, int) or -2**31 <= v < 2**31)
        self.format_checker.checks("int64")(
            lambda v: not isinstance(v, int) or -2**63 <= v < 2**63)

    def _load(self, rel):
        if rel not in self._docs:
            path = os.path.join(self.dir, rel)
            try:
                with open(path, encoding="utf-8") as f:
                    doc = json.load(f)
            except (OSError, ValueError) as e:
                raise UsageError(f"cannot load schema {path}: {e}")
            if "components" in doc:  # Kubernetes OpenAPI v3 document
                schemas = {n: strictify(s) for n, s in doc["components"]["schemas"].items()}
                if QUANTITY in schemas:
                    schemas[QUANTITY] = {"type": ["string", "number"], "format": "k8s-quantity"}
                doc = {"components": {"schemas": schemas}}
            else:  # CRD openAPIV3Schema or hand-written JSON Schema
                doc = strictify(doc)
            self._docs[rel] = doc
        return self._docs[rel]

    def validator(self, rel, component=None):
        key = (rel, component)
        if key not in self._validators:
            doc = self._load(rel)
            if component is not None:
                if component not in doc["components"]["schemas"]:
                    raise UsageError(f"schema {rel} has no {component}")
                schema = {"$ref": "#/components/schemas/" + component}
                resolver = jsonschema.RefResolver(base_uri="", referrer=doc)
            else:
                schema, resolver = doc, None
            self._validators[key] = jsonschema.Draft7Validator(
                schema, resolver=resolver, format_checker=self.format_checker)
        return self._validators[key]


# ---------------------------------------------------------------------------------------------
# Errors


def pointer(parts):
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def short(value, limit=80):
    s = json.dumps(value, ensure_ascii=False, default=str)
    return s if len(s) <= limit else s[:limit - 3] + "..."


def schema_errors(validator, instance, base=()):
    """Yield (path tuple, message) for every schema violation, with readable messages."""
    for e in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        path = tuple(base) + tuple(e.absolute_path)
        v = e.validator
        if v == "additionalProperties" and isinstance(e.instance, dict) and \
                e.validator_value is False:
            allowed = set(e.schema.get("properties", {}))
            pats = [re.compile(p) for p in e.schema.get("patternProperties", {})]
            extra = [k for k in e.instance
                     if k not in allowed and not any(p.search(k) for p in pats)]
            for k in sorted(extra):
                yield path + (k,), f"unknown field {json.dumps(k)}"
            continue
        if v == "required":
            missing = re.match(r"^'(.*)' is a required property$", e.message)
            name = missing.group(1) if missing else "?"
            yield path + (name,), "required field is missing"
            continue
        if v == "type":
            want = e.validator_value
            want = " or ".join(want) if isinstance(want, list) else want
            yield path, f"{short(e.instance)} is not of type {want}"
            continue
        if v == "format":
            what = {"k8s-quantity": "Kubernetes quantity (e.g. 500m, 64Gi, 1)"}.get(
                e.validator_value, e.validator_value)
            yield path, f"{short(e.instance)} is not a valid {what}"
            continue
        if v == "enum":
            yield path, f"{short(e.instance)} is not one of {short(e.validator_value, 160)}"
            continue
        if v == "pattern":
            yield path, f"{short(e.instance)} does not match {e.validator_value}"
            continue
        if v in ("oneOf", "anyOf"):
            yield path, f"{short(e.instance)} does not match any allowed form ({v})"
            continue
        msg = e.message
        yield path, msg if len(msg) <= 200 else msg[:197] + "..."


# ---------------------------------------------------------------------------------------------
# Metadata checks


def check_name(kind, name, spec):
    errs = []
    if not isinstance(name, str) or not name:
        return [(("metadata", "name"), "required field is missing")]
    if kind in ("Service", "LeaderWorkerSet", "DisaggregatedSet"):
        if len(name) > 63 or not DNS1035_LABEL.match(name):
            errs.append("must be a DNS-1035 label (lowercase alphanumerics and '-', starting "
                        "with a letter, at most 63 characters)")
    elif len(name) > 253 or not DNS1123_SUBDOMAIN.match(name):
        errs.append("must be a DNS-1123 subdomain (lowercase alphanumerics, '-' and '.', "
                    "at most 253 characters)")
    if kind == "ScaledObject":
        if len(name) > 63:
            errs.append("ScaledObject name must be at most 63 characters (used as a label value)")
        hpa = None
        if isinstance(spec, dict):
            hpa = ((spec.get("advanced") or {}).get("horizontalPodAutoscalerConfig") or {}).get("name")
        if not hpa and len("keda-hpa-" + name) > 63:
            errs.append(f"derived HPA name keda-hpa-{name} is longer than 63 characters")
    return [(("metadata", "name"), f"{json.dumps(name)}: {m}") for m in errs]


def check_qualified_key(key):
    if not isinstance(key, str):
        return "key must be a string"
    prefix, _, nm = key.rpartition("/")
    if "/" in key:
        if not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix):
            return "key prefix must be a DNS-1123 subdomain"
    if not nm or len(nm) > 63 or not QUALIFIED_NAME.match(nm):
        return ("key name must be at most 63 characters: alphanumerics, '-', '_' or '.', "
                "starting and ending with an alphanumeric")
    return None


def check_label_maps(node, path=()):
    """labels/matchLabels/annotations maps anywhere in the object."""
    if isinstance(node, dict):
        for k, v in node.items():
            here = path + (k,)
            if k in ("labels", "matchLabels", "annotations") and isinstance(v, dict):
                for lk, lv in v.items():
                    msg = check_qualified_key(lk)
                    if msg:
                        yield here + (lk,), f"invalid key {json.dumps(lk)}: {msg}"
                    if k != "annotations" and isinstance(lv, str) and \
                            (len(lv) > 63 or not LABEL_VALUE.match(lv)):
                        yield here + (lk,), (f"invalid label value {short(lv)}: at most 63 "
                                             "characters, alphanumerics, '-', '_' or '.', "
                                             "starting and ending with an alphanumeric")
            elif k != "data":  # ConfigMap payloads are not objects
                yield from check_label_maps(v, here)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from check_label_maps(v, path + (i,))


# ---------------------------------------------------------------------------------------------
# Documents


def validate_document(schemas, doc):
    """Return [(path tuple, message)] for one parsed document."""
    if not isinstance(doc, dict):
        return [((), f"document is a {type(doc).__name__}, not a mapping")]
    errs = []
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if kind is None or kind == "":
        return [(("kind",), "required field is missing")]
    if not isinstance(kind, str):
        return [(("kind",), f"{short(kind)} is not of type string")]
    if kind not in API_VERSION_OF:
        return [(("kind",), f"unsupported kind {json.dumps(kind)} (supported: "
                            f"{', '.join(sorted(API_VERSION_OF))})")]
    if (api_version, kind) not in KINDS:
        return [(("apiVersion",), f"{short(api_version)} is not valid for kind {kind}: "
                                  f"expected {json.dumps(API_VERSION_OF[kind])}")]
    rel, component = KINDS[(api_version, kind)]
    errs += schema_errors(schemas.validator(rel, component), doc)
    meta = doc.get("metadata")
    if component is None and meta is not None:  # CRD: the CRD schema only says `object`
        errs += schema_errors(schemas.validator(*OBJECT_META), meta, ("metadata",))
    if not isinstance(meta, dict):
        if "metadata" not in doc:
            errs.append((("metadata",), "required field is missing"))
        return errs
    errs += check_name(kind, meta.get("name"), doc.get("spec"))
    ns = meta.get("namespace")
    if isinstance(ns, str) and (len(ns) > 63 or not DNS1123_LABEL.match(ns)):
        errs.append((("metadata", "namespace"), f"{json.dumps(ns)}: must be a DNS-1123 label"))
    errs += check_label_maps(doc)

    if kind == "ConfigMap":
        labels = meta.get("labels") or {}
        data = doc.get("data") or {}
        adapter = isinstance(labels, dict) and isinstance(data, dict) and \
            labels.get(PROM_ADAPTER_LABEL[0]) == PROM_ADAPTER_LABEL[1]
        # prometheus-adapter's config.yaml, and the same rules as prometheus-community's chart
        # takes them: rules.custom, beside rules.default, existing, external and resource.
        for key, what in (("config.yaml", "config is"), ("values.yaml", "chart values are")):
            if not adapter or not isinstance(data.get(key), str):
                continue
            base = ("data", key)
            try:
                embedded = yaml.load(data[key], Loader=StrictLoader)
            except yaml.YAMLError as e:
                errs.append((base, f"embedded prometheus-adapter {what} not valid YAML: "
                                   + " ".join(str(e).split())))
                continue
            if key == "config.yaml":
                errs += schema_errors(schemas.validator(PROM_ADAPTER_SCHEMA), embedded, base)
                continue
            chart_keys = {"default", "custom", "existing", "external", "resource"}
            rules = embedded.get("rules") if isinstance(embedded, dict) else None
            if not isinstance(embedded, dict) or set(embedded) != {"rules"} \
                    or not isinstance(rules, dict) or not set(rules) <= chart_keys:
                errs.append((base, "expected the chart's values: rules with "
                                   + ", ".join(sorted(chart_keys))))
            else:
                errs += schema_errors(schemas.validator(PROM_ADAPTER_SCHEMA),
                                      {"rules": rules.get("custom") or []}, base)
    if kind == "ScaledObject":
        triggers = (doc.get("spec") or {}).get("triggers") if isinstance(doc.get("spec"), dict) else None
        for i, t in enumerate(triggers if isinstance(triggers, list) else []):
            if isinstance(t, dict) and t.get("type") == "prometheus" and \
                    isinstance(t.get("metadata"), dict):
                errs += schema_errors(schemas.validator(KEDA_PROM_SCHEMA), t["metadata"],
                                      ("spec", "triggers", i, "metadata"))
    return errs


class StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """Safe loader that rejects duplicate keys and, like sigs.k8s.io/yaml (go-yaml v2 into
    interface{}), keeps timestamps as strings."""


def _construct_mapping(loader, node, deep=False):
    loader.flatten_mapping(node)
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark,
                f"found duplicate key {key!r}", key_node.start_mark)
        seen[key] = True
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
StrictLoader.add_constructor("tag:yaml.org,2002:timestamp",
                             yaml.SafeLoader.construct_yaml_str)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1] if len(argv) >= 2 and argv[1] in ("-h", "--help")
              else "usage: validate_manifests.py SCHEMA_DIR FILE...", file=sys.stderr)
        return 2
    schema_dir, files = argv[1], argv[2:]
    if not os.path.isdir(schema_dir):
        print(f"validate_manifests.py: {schema_dir}: not a directory", file=sys.stderr)
        return 2
    schemas = Schemas(schema_dir)
    n_ok = n_docs = n_err = 0
    try:
        for fname in files:
            try:
                if fname == "-":
                    text = sys.stdin.read()
                else:
                    with open(fname, encoding="utf-8") as f:
                        text = f.read()
                docs = list(yaml.load_all(text, Loader=StrictLoader))
            except OSError as e:
                print(f"validate_manifests.py: {fname}: {e.strerror or e}", file=sys.stderr)
                return 2
            except (yaml.YAMLError, UnicodeDecodeError) as e:
                msg = " ".join(str(e).split()).replace('in "<unicode string>", ', "at ")
                print(f"{fname}: YAML error: {msg}", file=sys.stderr)
                return 2
            for idx, doc in enumerate(docs, 1):
                if doc is None:
                    continue
                n_docs += 1
                errs = validate_document(schemas, doc)
                if not errs:
                    n_ok += 1
                    continue
                kind = doc.get("kind") if isinstance(doc, dict) else None
                meta = doc.get("metadata") if isinstance(doc, dict) else None
                name = meta.get("name") if isinstance(meta, dict) else None
                label = f"{kind if isinstance(kind, str) else '?'}/{name if isinstance(name, str) else '?'}"
                seen = set()
                for path, msg in errs:
                    line = f"{fname}: document {idx} ({label}): {pointer(path)}: {msg}"
                    if line not in seen:
                        seen.add(line)
                        print(line)
                        n_err += 1
    except UsageError as e:
        print(f"validate_manifests.py: {e}", file=sys.stderr)
        return 2
    if n_err:
        print(f"invalid: {n_err} error(s) in {n_docs - n_ok} of {n_docs} documents",
              file=sys.stderr)
        return 1
    print(f"ok: {n_docs} documents", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
