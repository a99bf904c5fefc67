"""Model families, one folder each, and what they share.

    families/
      registry.py          FAMILIES (one `Family` each), model_type → family, backbone → family
      family.py            the `Family` record: builder, weight names, dimension row, inference math
      token_layouts.py     a padded batch, texts one after another, one text: positions and attention
      inference_ops.py     layer norm, RMS norm, rotary tables, dense layers read at call time
      post_norm_encoder.py the post-layer-norm block of BERT, RoBERTa, DistilBERT and MPNet
      pre_norm_decoder.py  the pre-norm decoder block of Qwen3 and Qwen2 (and its last-token-only variant)
      keras_hub_adapter.py keras-hub's `TransformerEncoder` → `PostNormBlock` (BERT, RoBERTa, DistilBERT)
      roberta_positions.py RoBERTa's positions counted from the ids (RoBERTa, XLM-R, MPNet)
      relative_position_bias.py  T5's bucketed relative position bias (MPNet's)
      config_dimensions.py what each family's builder reads from config.json, and what it must mean
      hugging_face_weights.py  torch Linear → Keras kernel, layer norms, attention projections
      hidden_activations.py    Hugging Face's activation names, as Keras functions
      <family>/            bert, distilbert, roberta (+ XLM-R), mpnet, modernbert, gemma3, qwen3, qwen2, t5:
                           its backbone (ours, or a keras-hub one with its adapter: the only reader of
                           keras-hub's private attributes), hugging_face.py, inference.py; no family
                           folder imports another (pyproject.toml's import-linter contract)

Every runtime reads a family's inference math through the registry: the fused OpenVINO and LiteRT graphs
run it on `PaddedTokens`, the raw-string SavedModel on `FlatTokens` and `OneText`. docs/architecture.md
has the family × runtime matrix and "where a new family goes".
"""

import keras_sentemb.tensorflow_start  # noqa: F401  (TensorFlow started quietly, before any Keras import)
