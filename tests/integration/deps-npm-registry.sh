#!/bin/sh
# gpuaudit deps on real npm packages with GPU variants (issue 19 item 4), fetched from the npm
# registry with `npm pack` once and cached under $GA_TEST_CACHE (the test skips when they
# cannot be fetched and are not cached):
#   node-llama-cpp 3.22.1              optionalDependencies on its per-platform packages
#                                      (linux-x64-cuda, -cuda-ext, -vulkan; mac-arm64-metal and the
#                                      win-* ones declare nothing for Linux), a postinstall that can
#                                      build with cmake-js
#   @node-llama-cpp/linux-x64-vulkan   the Vulkan variant: .node addons that NEED libvulkan.so.1
#   @tensorflow/tfjs-node-gpu 4.22.0   an install script that downloads libtensorflow (GPU) and
#                                      node-pre-gyp's "binary" field
#   onnxruntime-node 1.30.0            a postinstall (node ./script/install) that downloads the CUDA
#                                      execution provider, seen through its global-agent dependency
#                                      (a 113 MB download, cached like the others)
# The expectations are the reviewed lines below. Exit 0 pass, 1 fail, 77 skipped.
set -u
gpuaudit=$(cd "$(dirname "${1:?usage: deps-npm-registry.sh GPUAUDIT}")" && pwd)/$(basename "$1")
cache=${GA_TEST_CACHE:-/var/cache/gpuaudit-tests}
command -v npm >/dev/null 2>&1 || { echo "skipped: npm is needed to fetch the packages"; exit 77; }
mkdir -p "$cache/npm-gpu" 2>/dev/null || cache=${TMPDIR:-/tmp}/gpuaudit-tests-cache
mkdir -p "$cache/npm-gpu" || exit 1
dir=$cache/npm-gpu
for spec in node-llama-cpp@3.22.1:node-llama-cpp-3.22.1.tgz \
	@node-llama-cpp/linux-x64-vulkan@3.22.1:node-llama-cpp-linux-x64-vulkan-3.22.1.tgz \
	@tensorflow/tfjs-node-gpu@4.22.0:tensorflow-tfjs-node-gpu-4.22.0.tgz \
	onnxruntime-node@1.30.0:onnxruntime-node-1.30.0.tgz; do
	pkg=${spec%:*} file=${spec##*:}
	[ -s "$dir/$file" ] && continue
	t=$(mktemp -d)
	if ! (cd "$t" && timeout 300 npm pack --silent "$pkg" >/dev/null 2>&1 && [ -s "$file" ]); then
		rm -rf "$t"
		echo "skipped: $pkg could not be fetched from the npm registry (offline?) and is not cached"
		exit 77
	fi
	mv "$t/$file" "$dir/$file" && rm -rf "$t"
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0
expect() { # expect FILE LINE: LINE (a fixed string) must be in the output
	grep -qF -- "$2" "$1" || { echo "FAIL: missing: $2"; fail=1; }
}
refuse() {
	! grep -qF -- "$2" "$1" || { echo "FAIL: unexpected: $2"; fail=1; }
}
cd "$dir"
"$gpuaudit" deps --target rocm:6.2,gfx942 node-llama-cpp-3.22.1.tgz \
	node-llama-cpp-linux-x64-vulkan-3.22.1.tgz tensorflow-tfjs-node-gpu-4.22.0.tgz >"$out" 2>&1
echo "deps exit $?"
cat "$out"
expect "$out" "package node-llama-cpp 3.22.1 (npm, node-llama-cpp-3.22.1.tgz!/package/package.json)"
expect "$out" "cuda declared: optionalDependencies @node-llama-cpp/linux-x64-cuda@3.22.1, optionalDependencies @node-llama-cpp/linux-x64-cuda-ext@3.22.1"
expect "$out" "vulkan declared: optionalDependencies @node-llama-cpp/linux-x64-vulkan@3.22.1"
refuse "$out" "mac-arm64-metal"
refuse "$out" "win-x64-cuda"
expect "$out" "GA-DEPS-INSTALL-SCRIPT node-llama-cpp 3.22.1 fetches binaries at install time (postinstall: node ./dist/cli/cli.js postinstall)"
expect "$out" "GA-DEPS-WRONG-VENDOR node-llama-cpp 3.22.1 declares optionalDependencies @node-llama-cpp/linux-x64-cuda@3.22.1 (cuda) but the target rocm:6.2,gfx942 is an AMD node"
expect "$out" "platform: os=linux cpu=x64 libc=glibc"
expect "$out" "node-llama-cpp-linux-x64-vulkan-3.22.1.tgz!/package/bins/linux-x64-vulkan/llama-addon.node"
expect "$out" "vulkan hard: libvulkan.so.1"
expect "$out" "cuda declared: package @tensorflow/tfjs-node-gpu"
expect "$out" "GA-DEPS-INSTALL-SCRIPT @tensorflow/tfjs-node-gpu 4.22.0 fetches binaries at install time (install: node scripts/install.js gpu download)"
"$gpuaudit" deps --target cuda:12.4,sm_90 onnxruntime-node-1.30.0.tgz >"$out" 2>&1
echo "deps exit $? (onnxruntime-node)"
expect "$out" "GA-DEPS-INSTALL-SCRIPT onnxruntime-node 1.30.0 fetches binaries at install time (postinstall: node ./script/install)"
expect "$out" "fetches_with: dependency global-agent"
expect "$out" "platform: os=win32 os=darwin os=linux"
"$gpuaudit" deps --json tensorflow-tfjs-node-gpu-4.22.0.tgz node-llama-cpp-linux-x64-vulkan-3.22.1.tgz >"$out" 2>&1
python3 - "$out" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
trees = {t["name"]: t["kind"] for t in d["trees"]}
assert trees == {"tensorflow-tfjs-node-gpu-4.22.0.tgz": "npm", "node-llama-cpp-linux-x64-vulkan-3.22.1.tgz": "npm"}, trees
tf = [p for p in d["packages"] if p["name"] == "@tensorflow/tfjs-node-gpu"][0]
assert tf["install_fetch"] == "download" and tf["install_scripts"][0].startswith("install: "), tf
vk = [p for p in d["packages"] if p["name"] == "@node-llama-cpp/linux-x64-vulkan"][0]
assert (vk["os"], vk["cpu"], vk["libc"]) == (["linux"], ["x64"], ["glibc"]), vk
addons = [f for f in d["files"] if f["path"].endswith(".node")]
assert addons and all(f["package"] == "@node-llama-cpp/linux-x64-vulkan" for f in addons), addons
print("json: trees, npm fields and .node ownership as expected")
PY
exit $fail
