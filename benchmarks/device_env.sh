# Source on the GPU host (from the repo root) before any kgraph command: installs the carried wheels
# (.whl, from ../shared/device/wheels.sh setuptools; WHEELS=DIR for another set, e.g. one without wandb) and kgraph itself into /tmp, registers NVIDIA's
# OpenCL driver. kgraph is one installed package (kgraph.parsers/.data/.models map the top-level folders),
# so the checkout itself is not importable as is: it is installed, and PYTHONSAFEPATH keeps the
# working directory's kgraph/ folder from shadowing the installed package.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ${WHEELS:-.whl}/*.whl || return 1
PYTHONPATH=/tmp/site python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --upgrade --target /tmp/kg . \
  || return 1
export PYTHONPATH=/tmp/kg:/tmp/site:$PWD PYTHONSAFEPATH=1 KGRAPH_DATASETS=$PWD/data/datasets
mkdir -p /tmp/icd && echo libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd && cp /etc/OpenCL/vendors/*.icd /tmp/icd/ \
  && export OCL_ICD_VENDORS=/tmp/icd
