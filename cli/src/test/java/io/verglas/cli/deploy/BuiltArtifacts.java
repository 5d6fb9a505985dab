package io.verglas.cli.deploy;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.flink.runtime.util.EnvironmentInformation;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What the cli module's build leaves in {@code cli/target}, read from its pom (the test runs
 * before the package phase, so the files themselves may not exist yet): the launcher's jar,
 * the classpath file, and the artifacts the dependency plugin copies (the jobs' jars, Flink's
 * S3 filesystem plugin), as paths from the repository's root.
 */
record BuiltArtifacts(Set<String> files) {
  private static final String TARGET = "${project.build.directory}";

  static BuiltArtifacts of(Path pom) throws Exception {
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    Set<String> files = new LinkedHashSet<>();
    files.add("cli/target/" + text(doc.getDocumentElement(), "finalName") + ".jar");
    NodeList outputs = doc.getElementsByTagName("outputFile");
    for (int i = 0; i < outputs.getLength(); i++) {
      files.add(local(outputs.item(i).getTextContent()));
    }
    NodeList items = doc.getElementsByTagName("artifactItem");
    for (int i = 0; i < items.getLength(); i++) {
      Element item = (Element) items.item(i);
      String name = text(item, "destFileName");
      if (name == null) {
        name = text(item, "artifactId") + "-" + text(item, "version")
            .replace("${flink.version}", EnvironmentInformation.getVersion()) + ".jar";
      }
      files.add(local(text(item, "outputDirectory")) + "/" + name);
    }
    return new BuiltArtifacts(Set.copyOf(files));
  }

  /** Whether {@code path} is one of the files or a directory holding some. */
  boolean contains(String path) {
    String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    return files.contains(trimmed) || files.stream().anyMatch(f -> f.startsWith(trimmed + "/"));
  }

  private static String local(String path) {
    if (!path.startsWith(TARGET)) {
      throw new IllegalStateException("Cannot place " + path + ": not under " + TARGET);
    }
    return "cli/target" + path.substring(TARGET.length());
  }

  private static String text(Element parent, String tag) {
    NodeList found = parent.getElementsByTagName(tag);
    return found.getLength() == 0 ? null : found.item(0).getTextContent().trim();
  }
}
