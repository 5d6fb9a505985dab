package io.verglas.cli.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {
  @TempDir Path dir;

  @Test
  void createsAMissingDataDirectoryOwnerOnly() throws Exception {
    Path data = dir.resolve("parent").resolve("data");
    try (DataDirectory ignored = DataDirectory.open(data, data.resolve("tmp"))) {
      assertThat(mode(data)).isEqualTo("rwx------");
    }
  }

  @Test
  void leavesTheModeOfAnExistingDirectoryAlone() throws Exception {
    Path data = Files.createDirectory(dir.resolve("data"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-x---"));
    try (DataDirectory ignored = DataDirectory.open(data, data.resolve("tmp"))) {
      assertThat(mode(data)).isEqualTo("rwxr-x---");
    }
  }

  /** What a killed run left in tmp/ goes at the next start; tmp/ itself goes at stop. */
  @Test
  void emptiesTmpAtOpenAndDeletesItAtClose() throws Exception {
    Path data = Files.createDirectory(dir.resolve("data"));
    Path tmp = data.resolve("tmp");
    Files.createDirectories(tmp.resolve("materializer/rocksdb/job_1/db"));
    Files.createFile(tmp.resolve(DataDirectory.MARKER));
    Files.writeString(tmp.resolve("materializer/rocksdb/job_1/db/000004.log"), "stale");
    Path elsewhere = Files.createDirectory(dir.resolve("elsewhere"));
    Path kept = Files.writeString(elsewhere.resolve("kept"), "x");
    Files.createSymbolicLink(tmp.resolve("link"), elsewhere);
    Files.createDirectories(data.resolve("checkpoints/chk-1"));

    try (DataDirectory opened = DataDirectory.open(data, tmp)) {
      assertThat(tmp).isDirectoryContaining(p -> p.endsWith(DataDirectory.MARKER))
          .isDirectoryNotContaining(p -> !p.endsWith(DataDirectory.MARKER));
      Files.createDirectories(tmp.resolve("maintenance/flink"));
    }
    assertThat(tmp).doesNotExist();
    assertThat(kept).as("a link's target").hasContent("x");
    assertThat(data.resolve("checkpoints/chk-1")).isDirectory();
  }

  /** With "." as the data directory, tmp/ may be the operator's own: it is refused, not wiped. */
  @Test
  void refusesATmpDirectoryTheStackDidNotMake() throws Exception {
    Path data = Files.createDirectory(dir.resolve("data"));
    Path theirs = Files.createDirectory(data.resolve("tmp")).resolve("notes");
    Files.writeString(theirs, "x");

    assertThatThrownBy(() -> DataDirectory.open(data, data.resolve("tmp")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("Cannot use " + data.resolve("tmp") + " for temporary files");
    assertThat(theirs).hasContent("x");
    Files.move(data.resolve("tmp"), dir.resolve("moved-away"));
    DataDirectory.open(data, data.resolve("tmp")).close();       // the refusal released the lock
  }

  @Test
  void aSecondHolderIsRefusedUntilTheFirstCloses() throws Exception {
    Path data = dir.resolve("data");
    DataDirectory first = DataDirectory.open(data, data.resolve("tmp"));
    Files.writeString(data.resolve("tmp").resolve("in-use"), "x");

    assertThatThrownBy(() -> DataDirectory.open(data, data.resolve("tmp")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot use the data directory " + data + ": another Verglas stack is"
            + " running on it (it holds " + data.resolve("lock") + ")");
    assertThat(data.resolve("tmp").resolve("in-use")).exists();

    first.close();
    DataDirectory.open(data, data.resolve("tmp")).close();
  }

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }
}
