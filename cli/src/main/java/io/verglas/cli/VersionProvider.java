package io.verglas.cli;

import picocli.CommandLine.IVersionProvider;

/** The launcher's version, from the jar manifest when there is one. */
public final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String version = Verglas.class.getPackage().getImplementationVersion();
    return new String[] {"verglas " + (version == null ? "development build" : version)};
  }
}
