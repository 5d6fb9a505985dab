package io.verglas.cli.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A local stack for the tests of a class, registered with {@code @RegisterExtension}: it owns a
 * temporary directory ({@link #dir()}, deleted afterwards), the stack's configuration
 * ({@link TestingOrders#smallStack} in {@link #dataDir()} with the options a test class varies)
 * and the stack's lifecycle.
 *
 * <p>On an instance field it opens before each test and closes after it; on a static field,
 * before the class's first test and after its last. It starts the stack when it opens, unless
 * built {@link Builder#startedByTest()}: then the test (or a {@code @BeforeEach}/{@code
 * @BeforeAll} method, which JUnit runs after the extension's own callbacks) calls {@link
 * #start()}. A stack still running when the extension closes is stopped. A test method's
 * {@code @AfterEach}/{@code @AfterAll} runs before the extension closes; one that must release
 * something only after the stack stopped calls {@link #stop()} first.
 */
final class LocalStackExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {
  private final UnaryOperator<LocalConfig.Builder> options;
  private final boolean startedByTest;
  private boolean perClass;
  private Path dir;
  private LocalStack stack;

  private LocalStackExtension(Builder builder) {
    this.options = builder.options;
    this.startedByTest = builder.startedByTest;
  }

  static Builder builder() {
    return new Builder();
  }

  /** The temporary directory: the stack's data directory and anything else a test writes. */
  Path dir() {
    if (dir == null) {
      throw new IllegalStateException("Cannot use the local stack's directory: the extension is not open");
    }
    return dir;
  }

  /** The stack's data directory, {@code stack} in {@link #dir()}. */
  Path dataDir() {
    return dir().resolve("stack");
  }

  /** The configuration {@link #start()} starts the stack with. */
  LocalConfig config() {
    return configBuilder().build();
  }

  /** Starts the stack with the extension's options. */
  LocalStack start() {
    return start(UnaryOperator.identity());
  }

  /** Starts the stack with the extension's options and then {@code more}. */
  LocalStack start(UnaryOperator<LocalConfig.Builder> more) {
    if (stack != null) {
      throw new IllegalStateException("Cannot start a local stack: one is running in " + dataDir());
    }
    stack = LocalStack.start(more.apply(configBuilder()).build());
    return stack;
  }

  /** The running stack. */
  LocalStack stack() {
    if (stack == null) {
      throw new IllegalStateException("Cannot use the local stack: it is not running");
    }
    return stack;
  }

  /** Stops the stack if it runs; it may be started again. */
  void stop() {
    if (stack != null) {
      try {
        stack.close();
      } finally {
        stack = null;
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    perClass = true;
    open();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    if (!perClass) {
      open();
    }
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    if (!perClass) {
      close();
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    close();
  }

  private LocalConfig.Builder configBuilder() {
    return options.apply(TestingOrders.smallStack(dataDir()));
  }

  private void open() throws IOException {
    dir = Files.createTempDirectory("local-stack-");
    if (!startedByTest) {
      start();
    }
  }

  private void close() throws IOException {
    try {
      stop();
    } finally {
      if (dir != null) {
        delete(dir);
        dir = null;
      }
    }
  }

  private static void delete(Path root) throws IOException {
    List<Path> paths;
    try (Stream<Path> walk = Files.walk(root)) {
      paths = walk.sorted(Comparator.reverseOrder()).toList();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    for (Path path : paths) {
      Files.deleteIfExists(path);
    }
  }

  static final class Builder {
    private UnaryOperator<LocalConfig.Builder> options = UnaryOperator.identity();
    private boolean startedByTest;

    private Builder() {}

    /**
     * Options over {@link TestingOrders#smallStack}: {@code options} sets them on that builder
     * and answers it.
     */
    Builder options(UnaryOperator<LocalConfig.Builder> value) {
      this.options = Objects.requireNonNull(value, "options");
      return this;
    }

    /** Leaves the start to the test: {@link LocalStackExtension#start()}. */
    Builder startedByTest() {
      this.startedByTest = true;
      return this;
    }

    LocalStackExtension build() {
      return new LocalStackExtension(this);
    }
  }
}
