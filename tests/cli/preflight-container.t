# preflight inside a container (docs/container.md): the synthesized k8s-in-container tree is a pod's
# view of an 8-GPU node (one GPU injected by CDI, the image carrying its own libcuda.so.570.172.08).
# The container section compares what the container sees with the node; NVIDIA_VISIBLE_DEVICES is
# read from the environment; outside a container (k8s-healthy) there is no container section.
C="--root $FIXTURES/nodes/k8s-in-container/root --no-vendor --no-times"
unset NVIDIA_VISIBLE_DEVICES KUBERNETES_SERVICE_HOST
run preflight $C -- true
NVIDIA_VISIBLE_DEVICES=GPU-0e18c4b4-d9b7-8fec-c787-10cd64c110c7 run preflight $C --json -- true
NVIDIA_VISIBLE_DEVICES=all run preflight $C -- true
NVIDIA_VISIBLE_DEVICES=void run preflight $C -- true
NVIDIA_VISIBLE_DEVICES=all run preflight --root "$FIXTURES/nodes/k8s-healthy/root" --no-vendor --no-times -- true
