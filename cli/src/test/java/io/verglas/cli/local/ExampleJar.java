package io.verglas.cli.local;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles a worker's source (from docs/) against this JVM's class path into a jar. */
final class ExampleJar {
  private ExampleJar() {}

  static Path build(Path source, Path work) throws IOException {
    Path classes = Files.createDirectories(work.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status = javac.run(null, null, null, "-d", classes.toString(), "-cp",
        System.getProperty("java.class.path"), source.toString());
    if (status != 0) {
      throw new IllegalStateException("Cannot compile " + source + ": javac exited with " + status);
    }
    Path jar = work.resolve(source.getFileName().toString().replace(".java", ".jar"));
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> walk = Files.walk(classes)) {
      for (Path path : walk.filter(Files::isRegularFile).sorted().toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(path));
        out.closeEntry();
      }
    }
    return jar;
  }

  /** The repository's root (tests run in their module's directory). */
  static Path root() {
    return Path.of("").toAbsolutePath().getParent();
  }
}
