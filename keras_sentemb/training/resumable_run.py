"""The folder layout of a training run that a kill does not lose: backup, best dev epoch, fit clock."""

import json
import os

from keras_sentemb.training.exact_backup import ExactBackupAndRestore
from keras_sentemb.training.training_clock import TrainingClock


class ResumableRun:
    """One run's `output` folder, laid out so that a killed `fit` resumes where it stopped:

    | path                          | what                                                         |
    |-------------------------------|--------------------------------------------------------------|
    | `output/backup/`              | `ExactBackupAndRestore`'s raw weights and optimizer state    |
    |                               | (LoRA adapters exact); deleted when training ends            |
    | `output/backup/best_dev.npz`  | the best dev epoch's weights (`STSEvaluator(best_weights_path=…)`), |
    |                               | so a resumed run still restores the best epoch              |
    | `output/training_clock.json`  | `TrainingClock`: fit seconds summed over the resumed runs    |

    The clock resumes its sum when a backup is there, i.e. when this process continues a killed
    run. Create the `ResumableRun` before `fit` (the backup folder decides that).

    Example:
    >>> import tempfile, os
    >>> run = ResumableRun(tempfile.mkdtemp())
    >>> os.path.basename(run.best_weights_path), [type(c).__name__ for c in run.callbacks()]
    ('best_dev.npz', ['ExactBackupAndRestore', 'TrainingClock'])
    """

    def __init__(self, output):
        self.output = os.fspath(output)
        self.backup_dir = os.path.join(self.output, "backup")
        self.best_weights_path = os.path.join(self.backup_dir, "best_dev.npz")
        self.clock = TrainingClock(
            os.path.join(self.output, "training_clock.json"), resume=os.path.isdir(self.backup_dir)
        )

    def callbacks(self):
        """[ExactBackupAndRestore(backup), the clock]: put them after the dev evaluator."""
        return [ExactBackupAndRestore(self.backup_dir), self.clock]

    @property
    def finished_epochs(self):
        """Epochs the killed run finished (its backup's `training_metadata.json`; 0 for a fresh run):
        `fit` resumes at this epoch. A run whose epochs are slices of one pass over its data
        (`steps_per_epoch`) skips the batches they took, so that it continues that pass."""
        path = os.path.join(self.backup_dir, "training_metadata.json")
        if not os.path.isfile(path):
            return 0
        with open(path, encoding="utf-8") as f:
            return int(json.load(f)["epoch"])

    @property
    def fit_seconds(self):
        """Seconds in `fit` so far, over every resumed run."""
        return self.clock.seconds
