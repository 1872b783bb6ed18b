// k8s-validate.mjs FILE... - validate every Kubernetes object in YAML files against
// the API schemas, with the kubernetes-models packages (their JSON schemas are
// generated from the Kubernetes OpenAPI spec, and from the Prometheus Operator's
// CRDs for monitoring.coreos.com). Run from the directory the test installed them
// in (tests/integration/helm-chart.sh). One line per object; exit 1 on any object
// that is invalid or has no schema.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.cwd(), "package.json"));
const yaml = require("js-yaml");

async function model(apiVersion, kind) {
	const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
	const spec = group === "monitoring.coreos.com"
		? `@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`
		: `kubernetes-models/${group ? group + "/" : ""}${version}/${kind}`;
	try {
		const m = await import(path.join(process.cwd(), "node_modules", spec + ".js"));
		return m[kind] || null;
	} catch (e) {
		return null;
	}
}

let bad = 0, n = 0;
for (const file of process.argv.slice(2)) {
	for (const doc of yaml.loadAll(fs.readFileSync(file, "utf8"))) {
		if (!doc || Array.isArray(doc)) continue; // scrape-config.yaml is a list of jobs
		n++;
		const what = `${path.basename(file)}: ${doc.kind} ${doc.metadata && doc.metadata.name}`;
		const M = doc.apiVersion && doc.kind ? await model(doc.apiVersion, doc.kind) : null;
		if (!M) {
			console.log(`FAIL: ${what}: no schema for ${doc.apiVersion} ${doc.kind}`);
			bad++;
			continue;
		}
		try {
			new M(doc).validate();
			console.log(`ok: ${what} (${doc.apiVersion})`);
		} catch (e) {
			console.log(`FAIL: ${what}: ${String(e.message).split("\n").slice(0, 6).join(" | ")}`);
			bad++;
		}
	}
}
console.log(`${n} objects, ${bad} invalid`);
process.exit(bad ? 1 : 0);
