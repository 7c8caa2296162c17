using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace FunctionApp.Tests.Infrastructure;

/// <summary>Captures every log entry: the formatted message, each structured value and the exception's full text.</summary>
public sealed class CapturedLogs : ILoggerProvider
{
    public ConcurrentQueue<Entry> Entries { get; } = new();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public ILogger<T> For<T>() => new Logger<T>(new Factory(this));

    public IEnumerable<Entry> WithEvent(int eventId) => Entries.Where(e => e.EventId == eventId);

    /// <summary>Every piece of text a log sink could receive, one string per entry.</summary>
    public IEnumerable<string> AllText() => Entries.Select(e => e.AllText);

    public void Dispose()
    {
    }

    public sealed record Entry(string Category, LogLevel Level, int EventId, string Message, IReadOnlyList<KeyValuePair<string, object?>> State, Exception? Exception)
    {
        public string AllText =>
            string.Join('\n', [Category, Message, .. State.Select(s => $"{s.Key}={s.Value}"), Exception?.ToString() ?? string.Empty]);
    }

    private sealed class Logger(CapturedLogs owner, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var values = state as IReadOnlyList<KeyValuePair<string, object?>> ?? [];
            owner.Entries.Enqueue(new Entry(category, logLevel, eventId.Id, formatter(state, exception), values.ToList(), exception));
        }
    }

    private sealed class Factory(CapturedLogs owner) : ILoggerFactory
    {
        public void AddProvider(ILoggerProvider provider)
        {
        }

        public ILogger CreateLogger(string categoryName) => owner.CreateLogger(categoryName);

        public void Dispose()
        {
        }
    }
}
