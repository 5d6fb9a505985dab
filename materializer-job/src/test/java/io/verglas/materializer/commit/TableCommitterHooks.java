package io.verglas.materializer.commit;

import java.util.function.Consumer;
import org.apache.iceberg.Table;

/** Reaches the committer's test seam from tests in other packages. */
public final class TableCommitterHooks {
  private TableCommitterHooks() {}

  /** {@code hook} runs after each commit attempt is prepared and before it commits. */
  public static void beforeCommit(TableCommitter committer, Consumer<Table> hook) {
    committer.beforeCommit(hook);
  }
}
