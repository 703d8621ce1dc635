# Two entry points: `make demo` (the main job on the shipped default) and `make test` (the test suite).
# Both create .venv and install pinned dependencies (constraints.txt) the first time.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-all export-c starpu-example starpu-adaptive clean-venv
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt torch==2.13.0
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[cpu-opencl,export,test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m kgraph.app.demo

test: $(STAMP)
	$(BIN)/python -m pytest -q tests

test-all: $(STAMP)
	$(BIN)/python -m pytest -q -m "" tests

# build output, never committed: the shipped compact head as C99 (kgraph_model.c/.h), with the StarPU tile kernels
export-c: $(STAMP)
	$(BIN)/kgraph export --format c --out build/model --kernels data/corpus/tiles/*.cl

# the walk-through of docs/RUNTIME.md: your OpenCL kernel (user_saxpy.cl) -> C model -> a StarPU codelet run
# under dmda on PoCL OpenCL workers, checked (kgraph perfmodel called, predictions used, results exact)
starpu-example: $(STAMP)
	$(BIN)/kgraph export --format c --out build/user_model --only --kernels kgraph/app/runtime/starpu/user_saxpy.cl \
	    --device data/datasets/pocl-skylake-avx512-intel-xeon/device.json
	$(BIN)/python -m kgraph.app.runtime.starpu_runner --model-dir build/user_model --build build/starpu-example

# the adaptive perfmodel (docs/RUNTIME.md "Adaptive perfmodel"): the same kernel over rounds, predictions moving
# from kgraph's prior to the measured times; run it twice to see the second start warm from the history file
starpu-adaptive: $(STAMP)
	$(BIN)/kgraph export --format c --out build/user_model --only --kernels kgraph/app/runtime/starpu/user_saxpy.cl \
	    --device data/datasets/pocl-skylake-avx512-intel-xeon/device.json
	$(BIN)/python -m kgraph.app.runtime.starpu_runner --model-dir build/user_model --build build/starpu-example \
	    --adaptive --tasks 6 --n 262144

clean-venv:
	rm -rf $(VENV)
