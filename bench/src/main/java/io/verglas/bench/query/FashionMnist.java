package io.verglas.bench.query;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Fashion-MNIST images as 784-dimension float vectors (pixel values 0..255), read from the
 * gzipped IDX files of Debian's {@code dataset-fashion-mnist} package.
 */
final class FashionMnist {
  static final Path DEFAULT_DIR = Path.of("/usr/share/datasets/fashion-mnist");
  static final String DIR_PROPERTY = "verglas.bench.fashion-mnist";
  private static final int IDX3_MAGIC = 0x00000803;

  private FashionMnist() {}

  static Path dir() {
    Path dir = Path.of(System.getProperty(DIR_PROPERTY, DEFAULT_DIR.toString()));
    if (!Files.isRegularFile(dir.resolve("train-images-idx3-ubyte.gz"))) {
      throw new IllegalStateException("Cannot run the query benchmark: Fashion-MNIST is not in "
          + dir + ". Install it with 'apt-get install -y dataset-fashion-mnist' (Debian), or set "
          + "-D" + DIR_PROPERTY + "=DIR to a directory holding train-images-idx3-ubyte.gz and "
          + "t10k-images-idx3-ubyte.gz");
    }
    return dir;
  }

  /** The first {@code limit} training images. */
  static List<float[]> train(int limit) throws IOException {
    return read(dir().resolve("train-images-idx3-ubyte.gz"), limit);
  }

  /** The first {@code limit} test images (never in the training set). */
  static List<float[]> test(int limit) throws IOException {
    return read(dir().resolve("t10k-images-idx3-ubyte.gz"), limit);
  }

  static List<float[]> read(Path file, int limit) throws IOException {
    try (InputStream raw = Files.newInputStream(file);
        DataInputStream in = new DataInputStream(new GZIPInputStream(raw, 1 << 16))) {
      int magic = in.readInt();
      if (magic != IDX3_MAGIC) {
        throw new IOException("Cannot read " + file + ": magic " + Integer.toHexString(magic)
            + " is not an IDX3 image file");
      }
      int count = Math.min(in.readInt(), limit);
      int dimension = in.readInt() * in.readInt();
      byte[] pixels = new byte[dimension];
      List<float[]> images = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        in.readFully(pixels);
        float[] image = new float[dimension];
        for (int d = 0; d < dimension; d++) {
          image[d] = pixels[d] & 0xff;
        }
        images.add(image);
      }
      return images;
    }
  }
}
