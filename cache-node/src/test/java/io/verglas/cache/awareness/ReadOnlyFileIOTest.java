package io.verglas.cache.awareness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.iceberg.ObjectSource;
import io.verglas.cache.iceberg.ReadOnlyFileIO;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;

class ReadOnlyFileIOTest {
  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicInteger lengths = new AtomicInteger();
  private final ReadOnlyFileIO io = new ReadOnlyFileIO(new ObjectSource() {
    @Override
    public long length(String location) {
      lengths.incrementAndGet();
      return 10;
    }

    @Override
    public byte[] read(String location) {
      reads.incrementAndGet();
      return "0123456789".getBytes(StandardCharsets.US_ASCII);
    }
  });

  @Test
  void streamsSeekAndReadFromOneRead() throws IOException {
    InputFile file = io.newInputFile("s3://b/k");
    try (SeekableInputStream in = file.newStream()) {
      in.seek(7);
      assertThat(in.read()).isEqualTo('7');
      byte[] rest = new byte[8];
      assertThat(in.read(rest, 0, 8)).isEqualTo(2);
      assertThat(in.read()).isEqualTo(-1);
      in.seek(0);
      assertThat(in.skip(3)).isEqualTo(3);
      assertThat(in.getPos()).isEqualTo(3);
      assertThatThrownBy(() -> in.seek(11)).isInstanceOf(EOFException.class);
    }
    file.newStream().close();
    assertThat(file.getLength()).isEqualTo(10);
    assertThat(reads).hasValue(1);
    assertThat(lengths).hasValue(0);
  }

  @Test
  void aKnownLengthNeedsNoLookup() {
    assertThat(io.newInputFile("s3://b/k", 10).getLength()).isEqualTo(10);
    assertThat(io.newInputFile("s3://b/k").getLength()).isEqualTo(10);
    assertThat(lengths).hasValue(1);
  }

  @Test
  void writesAreRefused() {
    assertThatThrownBy(() -> io.newOutputFile("s3://b/k"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessage("Cannot write s3://b/k: this FileIO is read-only");
    assertThatThrownBy(() -> io.deleteFile("s3://b/k")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(io.properties()).isEmpty();
  }
}
