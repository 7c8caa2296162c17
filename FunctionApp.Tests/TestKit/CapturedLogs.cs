using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.TestKit;

/// <summary>A logger provider that keeps every formatted line, for asserting on what was (not) logged.</summary>
public sealed class CapturedLogs : ILoggerProvider
{
    private readonly ConcurrentQueue<CapturedLog> _entries = new();

    public IReadOnlyCollection<CapturedLog> Entries => _entries;

    public ILogger CreateLogger(string categoryName) => new Logger(categoryName, _entries);

    public void Dispose()
    {
    }

    private sealed class Logger(string category, ConcurrentQueue<CapturedLog> entries) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            entries.Enqueue(new CapturedLog(category, logLevel, eventId, formatter(state, exception), exception?.ToString())
            {
                State = state is IEnumerable<KeyValuePair<string, object?>> fields ? fields.ToDictionary(f => f.Key, f => f.Value, StringComparer.Ordinal) : new Dictionary<string, object?>(),
            });
    }
}

public sealed record CapturedLog(string Category, LogLevel Level, EventId EventId, string Message, string? Exception)
{
    /// <summary>The structured fields the entry carried (its state's members, <c>{OriginalFormat}</c> included).</summary>
    public IReadOnlyDictionary<string, object?> State { get; init; } = new Dictionary<string, object?>();
}
