/// Placeholder until the engine lands.
public enum EnginePlaceholder {}
