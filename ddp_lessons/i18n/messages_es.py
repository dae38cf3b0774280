"""Spanish for every message the package shows a learner: {English template: Spanish template}.

The English template is the one written in the code, inside ``tr(...)``; keep the ``{fields}`` (and
their format specs) of the English in the Spanish. Terms follow ``i18n/es/GLOSSARY.md``: rank, world
size, backend, all-reduce, checkpoint... stay in English; code, names and values are never translated.
`tests/test_translations.py` fails when a `tr` template has no entry here, when an entry's template
is gone from the code, or when the fields differ.
"""

SPANISH = {
    # ddp_lessons.quiz: the words around every quick-check question
    "Quick check.": "Comprobación rápida.",
    "Answer": "Respuesta",
    "✓ Correct. {explanation}": "✓ Correcto. {explanation}",
    "✗ Not quite: ({letter}) is not it. {feedback} Try another option.":
        "✗ No exactamente: ({letter}) no es la respuesta. {feedback} Pruebe otra opción.",
    "✗ Not quite: ({letter}) is not it. Think again, then try another option.":
        "✗ No exactamente: ({letter}) no es la respuesta. Piénselo de nuevo y pruebe otra opción.",
    "Answer with quiz.check(letter), or click an option in JupyterLab.":
        "Responda con quiz.check(letra) o haga clic en una opción en JupyterLab.",
    'no question asked yet: run a quiz.ask("NN", k) cell first':
        'todavía no se ha hecho ninguna pregunta: ejecute antes una celda quiz.ask("NN", k)',

    # ddp_lessons.grading.feedback: the student's feedback file
    "# Feedback for {student}": "# Evaluación de {student}",
    "Total: **{total}/{possible}** points.": "Total: **{total}/{possible}** puntos.",
    "## {exercise}: {points}/{max_points} points": "## {exercise}: {points}/{max_points} puntos",
    "| | check | points |": "| | comprobación | puntos |",
    " (cell {cell})": " (celda {cell})",
    "passed": "superada",
    "failed": "no superada",
    "**{title}** — what you saw when this check ran:":
        "**{title}**: lo que usted vio al ejecutarse esta comprobación:",
    "**Not submitted**: no notebook with this name was handed in.":
        "**No entregado**: no se entregó ningún notebook con este nombre.",
    "**Unreadable**: the file is not a notebook the grader could open.":
        "**Ilegible**: el archivo no es un notebook que el corrector pueda abrir.",
    "**Timed out**: a cell ran past its time limit, so this exercise scores zero.":
        "**Tiempo agotado**: una celda superó su límite de tiempo, así que este ejercicio puntúa cero.",
    "**Crashed**: the notebook's kernel died (for example `os._exit` or out of memory), so this exercise "
    "scores zero.":
        "**Caída del kernel**: el kernel del notebook murió (por ejemplo, `os._exit` o falta de memoria), "
        "así que este ejercicio puntúa cero.",
    "**Did not run**: the notebook could not be started.": "**No se ejecutó**: no se pudo iniciar el notebook.",
    "**Over a limit**: this notebook {note}, so this exercise scores zero. The grader bounds the memory, disk, "
    "processes and output of every notebook, so that one cannot slow down or break the others graded beside it.":
        "**Por encima de un límite**: este notebook {note}, así que este ejercicio puntúa cero. El corrector "
        "limita la memoria, el disco, los procesos y la salida de cada notebook, para que ninguno pueda "
        "ralentizar ni romper a los demás que se corrigen a la vez.",

    # ddp_lessons.checks.common
    "expected one {name!r} record from each rank 0..{last}, got ranks {ranks}":
        "se esperaba un registro {name!r} de cada rank 0..{last}, pero llegaron los ranks {ranks}",
    # ddp_lessons.checks.gradients (exercises 1 and 4)
    "return one list of gradients per shard: {world} shards, got {got}":
        "devuelva una lista de gradientes por fragmento: {world} fragmentos, pero llegaron {got}",
    "{world} replicas, replica {rank}": "{world} réplicas, réplica {rank}",
    "{where}: return one gradient per parameter ({expected}), got {got}":
        "{where}: devuelva un gradiente por parámetro ({expected}), pero llegaron {got}",
    "{where}: this gradient holds the earlier replicas' gradients too: backward() adds to .grad, so zero the "
    "gradients (model.zero_grad()) before each replica's backward":
        "{where}: este gradiente contiene también los gradientes de las réplicas anteriores: backward() suma "
        "a .grad, así que ponga los gradientes a cero (model.zero_grad()) antes de la propagación hacia atrás "
        "de cada réplica",
    "{where}: your gradient is {scale:g}x the expected one: use the mean loss over the shard (F.mse_loss's "
    "default), not the sum":
        "{where}: su gradiente es {scale:g} veces el esperado: utilice la pérdida media sobre el fragmento "
        "(lo que F.mse_loss hace por defecto), no la suma",
    "{where}: this is the whole batch's gradient: replica r computes on shards[r] only":
        "{where}: este es el gradiente del lote entero: la réplica r calcula solo sobre shards[r]",
    "{where}: expected the gradient of the mean loss on shards[{rank}]; max |difference| {difference:.3g}":
        "{where}: se esperaba el gradiente de la pérdida media sobre shards[{rank}]; diferencia máxima "
        "(en valor absoluto) {difference:.3g}",
    "each replica's gradient is the mean-loss gradient of its own shard":
        "el gradiente de cada réplica es el de la pérdida media sobre su propio fragmento",
    "return one averaged gradient per parameter ({expected}), got {got}":
        "devuelva un gradiente promediado por parámetro ({expected}), pero llegaron {got}",
    "{world} replicas: you summed the replicas' gradients; DDP's all-reduce averages them (the sum divided by "
    "the world size)":
        "{world} réplicas: ha sumado los gradientes de las réplicas; el all-reduce de DDP los promedia (la suma "
        "dividida entre el world size)",
    "{world} replicas: that is replica 0's gradient alone: average over all replicas":
        "{world} réplicas: ese es solo el gradiente de la réplica 0: promedie sobre todas las réplicas",
    "{world} replicas: the average of the replicas' gradients should equal the whole batch's; max |difference| "
    "{difference:.3g}":
        "{world} réplicas: el promedio de los gradientes de las réplicas debería ser igual al del lote entero; "
        "diferencia máxima (en valor absoluto) {difference:.3g}",
    "the mean of the replicas' gradients is the whole batch's gradient (max |difference| {difference:.1e})":
        "la media de los gradientes de las réplicas es el gradiente del lote entero (diferencia máxima en valor "
        "absoluto: {difference:.1e})",
    "rank {rank}'s weights differ from rank 0's: DDP(model) copies rank 0's weights to every rank when it is "
    "built. Did you wrap the model?":
        "los pesos del rank {rank} son distintos de los del rank 0: DDP(model) copia los pesos del rank 0 a "
        "todos los ranks al construirse. ¿Ha envuelto el modelo?",
    "rank {rank}'s gradients differ from rank 0's: run the forward pass through the DDP wrapper "
    "(ddp_model(inputs)); only then does backward() all-reduce the gradients":
        "los gradientes del rank {rank} son distintos de los del rank 0: haga la propagación hacia delante a "
        "través del envoltorio de DDP (ddp_model(inputs)); solo así backward() hace el all-reduce de los "
        "gradientes",
    "the gradients are {scale:g}x one process's gradient on the whole batch: use the mean loss on each rank "
    "(DDP averages across ranks, so a summed loss scales it by the batch size)":
        "los gradientes son {scale:g} veces el gradiente de un solo proceso sobre el lote entero: utilice la "
        "pérdida media en cada rank (DDP promedia entre los ranks, así que una pérdida sumada lo multiplica "
        "por el tamaño del lote)",
    "every rank holds the same gradient, but not the whole batch's: max |difference| {difference:.3g}":
        "todos los ranks tienen el mismo gradiente, pero no el del lote entero: diferencia máxima (en valor "
        "absoluto) {difference:.3g}",
    "all {nproc} ranks hold one process's gradient on the whole batch (max |difference| {difference:.1e})":
        "los {nproc} ranks tienen el gradiente de un solo proceso sobre el lote entero (diferencia máxima en "
        "valor absoluto: {difference:.1e})",
    # ddp_lessons.checks.process_group (exercise 2)
    "rank {rank} sees a world of {world}, expected {nproc}":
        "el rank {rank} ve un world size de {world}; se esperaba {nproc}",
    "rank {rank} joined with {got!r}, but this machine needs {expected!r} ({reason}): pass "
    "backend.choose().backend to init_process_group, not a fixed name":
        "el rank {rank} se unió con {got!r}, pero esta máquina necesita {expected!r} ({reason}): pase "
        "backend.choose().backend a init_process_group, no un nombre fijo",
    "rank {rank} computes on {got}, expected {expected}: take the device from backend.choose(local_rank), "
    "where local_rank = int(os.environ['LOCAL_RANK'])":
        "el rank {rank} calcula en {got}; se esperaba {expected}: tome el dispositivo de "
        "backend.choose(local_rank), con local_rank = int(os.environ['LOCAL_RANK'])",
    "rank {rank}'s current CUDA device is cuda:{got}, expected {expected}: call torch.cuda.set_device(device) "
    "before init_process_group":
        "el dispositivo CUDA actual del rank {rank} es cuda:{got}; se esperaba {expected}: llame a "
        "torch.cuda.set_device(device) antes de init_process_group",
    "{nproc} ranks joined with {backend}, {placement}": "{nproc} ranks se unieron con {backend}, {placement}",
    "each on its own device: {devices}": "cada uno en su propio dispositivo: {devices}",
    "all on the CPU (each a process of its own)": "todos en la CPU (cada uno en su propio proceso)",
    "ranks {ranks} share {device}": "los ranks {ranks} comparten {device}",
    "rank {rank} on {device}": "el rank {rank} en {device}",
    "the launch in the check cell above must succeed first: this check reads what its ranks recorded (fix "
    "the script until that cell runs without error)":
        "primero debe funcionar el lanzamiento de la celda de comprobación de arriba: esta comprobación lee lo "
        "que registraron sus ranks (corrija el script hasta que esa celda se ejecute sin errores)",
    "rank {rank} got the sum {got}: all_reduce sums by default; divide by dist.get_world_size()":
        "el rank {rank} obtuvo la suma {got}: all_reduce suma por defecto; divida entre dist.get_world_size()",
    "rank {rank} got back its own value {got}: dist.all_reduce(tensor) combines the tensor across ranks":
        "el rank {rank} recibió su propio valor {got}: dist.all_reduce(tensor) combina el tensor entre los ranks",
    "rank {rank} got {got}, expected the mean {mean}": "el rank {rank} obtuvo {got}; se esperaba la media {mean}",
    "rank {rank}'s input changed from {before} to {after}: all_reduce works in place, so reduce a copy "
    "(value.clone())":
        "la entrada del rank {rank} cambió de {before} a {after}: all_reduce trabaja in situ, así que reduzca "
        "una copia (value.clone())",
    "every rank got the mean {mean} and kept its own value":
        "todos los ranks obtuvieron la media {mean} y conservaron su propio valor",
    "setup() never called dist.init_process_group": "setup() nunca llamó a dist.init_process_group",
    "with a GPU per rank setup() joined with {got!r}, not 'nccl': pass backend.choose(local_rank).backend to "
    "init_process_group, not a fixed name":
        "con una GPU por rank, setup() se unió con {got!r}, no con 'nccl': pase backend.choose(local_rank).backend "
        "a init_process_group, no un nombre fijo",
    "with a GPU per rank setup() never called torch.cuda.set_device: every rank would use cuda:0; call "
    "torch.cuda.set_device(choice.device) before init_process_group":
        "con una GPU por rank, setup() nunca llamó a torch.cuda.set_device: todos los ranks usarían cuda:0; "
        "llame a torch.cuda.set_device(choice.device) antes de init_process_group",
    "setup() called torch.cuda.set_device after init_process_group: call it before":
        "setup() llamó a torch.cuda.set_device después de init_process_group: llámelo antes",
    "setup() set the CUDA device to {got}, expected {gpu} (LOCAL_RANK)":
        "setup() fijó el dispositivo CUDA en {got}; se esperaba {gpu} (LOCAL_RANK)",
    "setup() returned {got}, expected {gpu}": "setup() devolvió {got}; se esperaba {gpu}",
    "with a simulated GPU per rank, setup() sets {gpu} and joins with nccl":
        "con una GPU simulada por rank, setup() fija {gpu} y se une con nccl",
    # ddp_lessons.checks.devices (exercise 3)
    "RANK numbers the workers of the whole job: node_rank * nproc_per_node + local_rank":
        "RANK numera los procesos de todo el trabajo: node_rank * nproc_per_node + local_rank",
    "LOCAL_RANK numbers the workers on one node, from 0": "LOCAL_RANK numera los procesos de un nodo, desde 0",
    "WORLD_SIZE counts every worker of the job: nnodes * nproc_per_node":
        "WORLD_SIZE cuenta todos los procesos del trabajo: nnodes * nproc_per_node",
    "LOCAL_WORLD_SIZE counts the workers on this node: nproc_per_node":
        "LOCAL_WORLD_SIZE cuenta los procesos de este nodo: nproc_per_node",
    "node {node} of {nnodes}, local rank {local_rank} of {nproc}: {key} should be {value}, got {got!r}. {hint}":
        "nodo {node} de {nnodes}, rank local {local_rank} de {nproc}: {key} debería ser {value}, pero vale "
        "{got!r}. {hint}",
    "RANK, LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE match torchrun's for 1-3 nodes":
        "RANK, LOCAL_RANK, WORLD_SIZE y LOCAL_WORLD_SIZE coinciden con los de torchrun para 1-3 nodos",
    "use LOCAL_RANK, not RANK: every node numbers its GPUs from 0, while RANK counts the workers of all nodes":
        "utilice LOCAL_RANK, no RANK: cada nodo numera sus GPU desde 0, mientras que RANK cuenta los procesos "
        "de todos los nodos",
    "nccl needs GPUs: on CPU use gloo": "nccl necesita GPU: en la CPU utilice gloo",
    "NCCL refuses two ranks on one GPU ('Duplicate GPU detected'): when the ranks of a node share its GPUs, "
    "use gloo":
        "NCCL rechaza dos ranks en una GPU ('Duplicate GPU detected'): cuando los ranks de un nodo comparten "
        "sus GPU, utilice gloo",
    "compare the node's GPUs with the ranks on this node (LOCAL_WORLD_SIZE), not with the whole job "
    "(WORLD_SIZE)":
        "compare las GPU del nodo con los ranks de este nodo (LOCAL_WORLD_SIZE), no con todo el trabajo "
        "(WORLD_SIZE)",
    "this node has no GPU: use 'cpu'": "este nodo no tiene GPU: utilice 'cpu'",
    "the node has GPUs: use one, named with its index, e.g. 'cuda:0'":
        "el nodo tiene GPU: utilice una, nombrada con su índice, p. ej. 'cuda:0'",
    "{device} does not exist on a node with {gpus} GPU(s): ranks share them as cuda:(LOCAL_RANK % gpus)":
        "{device} no existe en un nodo con {gpus} GPU: los ranks las comparten como cuda:(LOCAL_RANK % gpus)",
    "every rank has a GPU of its own here: use nccl, the GPU backend":
        "aquí cada rank tiene una GPU propia: utilice nccl, el backend para GPU",
    "follow the rule of lesson 3": "siga la regla de la lección 3",
    "worker RANK={rank} (LOCAL_RANK={local_rank}, {nproc} per node, {nnodes} node(s)) on a node with {gpus} "
    "GPU(s): expected {expected}, got {got}. {hint}":
        "proceso RANK={rank} (LOCAL_RANK={local_rank}, {nproc} por nodo, {nnodes} nodo(s)) en un nodo con "
        "{gpus} GPU: se esperaba {expected}, pero llegó {got}. {hint}",
    "devices and backends are right for 1-2 nodes of 1-4 ranks with 0-4 GPUs":
        "dispositivos y backends correctos para 1-2 nodos de 1-4 ranks con 0-4 GPU",
    # ddp_lessons.checks.sampler (exercise 5)
    "shards must be strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order; you returned "
    "contiguous blocks":
        "los fragmentos deben ser intercalados: el rank r toma las posiciones r, r+W, r+2W, ... del orden de "
        "la época; usted devolvió bloques contiguos",
    "too few indices: when the size does not divide by world_size, the order is padded to "
    "ceil(size / world_size) * world_size by repeating it from its start (again and again if the data set is "
    "tiny), so every rank gets {count}":
        "faltan índices: cuando el tamaño no es divisible entre world_size, el orden se rellena hasta "
        "ceil(size / world_size) * world_size repitiéndolo desde su principio (una y otra vez si el conjunto "
        "de datos es diminuto), así que cada rank recibe {count}",
    "with drop_last=True the order is cut to floor(size / world_size) * world_size indices, with no padding, "
    "so every rank gets {count}":
        "con drop_last=True el orden se corta a floor(size / world_size) * world_size índices, sin relleno, "
        "así que cada rank recibe {count}",
    "every rank gets {count} indices here": "aquí cada rank recibe {count} índices",
    "padding must repeat the first indices of the epoch's order, in order (order + order[:padding]): "
    "expected {padded} at the padded positions":
        "el relleno debe repetir los primeros índices del orden de la época, en orden "
        "(order + order[:padding]): se esperaba {padded} en las posiciones de relleno",
    "the order must change with the epoch: seed the generator with seed + epoch":
        "el orden debe cambiar con la época: inicialice el generador con seed + epoch",
    "with shuffle=True, first permute: torch.randperm(size, generator=g) with g = torch.Generator(); "
    "g.manual_seed(seed + epoch)":
        "con shuffle=True, primero permute: torch.randperm(size, generator=g) con g = torch.Generator(); "
        "g.manual_seed(seed + epoch)",
    "compare with the rule in lesson 5": "compare con la regla de la lección 5",
    "size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, shuffle={shuffle}, "
    "drop_last={drop_last}: expected {expected}, got {got}. {hint}":
        "size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, shuffle={shuffle}, "
        "drop_last={drop_last}: se esperaba {expected}, pero llegó {got}. {hint}",
    "identical to torch's DistributedSampler in all {count} cases tried":
        "idéntico al DistributedSampler de torch en los {count} casos probados",
    "size={size}, world_size={world}, drop_last={drop_last}: expected {expected}, got {got}. Count every visit "
    "of every rank: padded indices are visited more than once, indices cut by drop_last zero times":
        "size={size}, world_size={world}, drop_last={drop_last}: se esperaba {expected}, pero llegó {got}. "
        "Cuente cada visita de cada rank: los índices de relleno se visitan más de una vez, y los que corta "
        "drop_last, ninguna",
    "visit counts are right, padding and drop_last included":
        "los recuentos de visitas son correctos, con el relleno y drop_last incluidos",
    # ddp_lessons.checks.no_sync (exercise 6)
    "rank {rank} all-reduced {calls} times, once per micro-batch: run the forward AND the backward of the first "
    "{first} micro-batches of each step inside `with ddp_model.no_sync():` (DDP decides in the forward whether "
    "the next backward all-reduces, so a backward alone inside no_sync() still all-reduces)":
        "el rank {rank} hizo {calls} all-reduces, uno por microlote: ejecute la propagación hacia delante Y la "
        "propagación hacia atrás de los {first} primeros microlotes de cada paso dentro de "
        "`with ddp_model.no_sync():` (DDP decide en la propagación hacia delante si la siguiente propagación "
        "hacia atrás hace el all-reduce, así que una propagación hacia atrás sola dentro de no_sync() lo sigue "
        "haciendo)",
    "no all-reduce ran: the last micro-batch of each step must run its backward outside no_sync(), so DDP "
    "all-reduces the accumulated gradients":
        "no se ejecutó ningún all-reduce: el último microlote de cada paso debe hacer su propagación hacia atrás "
        "fuera de no_sync(), para que DDP haga el all-reduce de los gradientes acumulados",
    "rank {rank} all-reduced {calls} times, expected {steps} (one per step)":
        "el rank {rank} hizo {calls} all-reduces; se esperaban {steps} (uno por paso)",
    "rank {rank} took {taken} optimizer steps for {micro} micro-batches: step once every {k} micro-batches":
        "el rank {rank} dio {taken} pasos del optimizador para {micro} microlotes: dé un paso cada {k} "
        "microlotes",
    "after step {step}, rank {rank}'s weights differ from rank 0's: the step used gradients that were not "
    "all-reduced":
        "tras el paso {step}, los pesos del rank {rank} son distintos de los del rank 0: el paso usó gradientes "
        "sin all-reduce",
    "step {step} moved the weights {k}x too far: the gradients of the {k} micro-batches add up, so divide each "
    "micro-batch's loss by accumulation_steps":
        "el paso {step} movió los pesos {k} veces más de lo debido: los gradientes de los {k} microlotes se "
        "suman, así que divida la pérdida de cada microlote entre accumulation_steps",
    "step {step} differs although step 0 was right: zero the gradients after each optimizer step, or they carry "
    "over into the next one":
        "el paso {step} es distinto aunque el paso 0 era correcto: ponga los gradientes a cero tras cada paso "
        "del optimizador, o se arrastrarán al siguiente",
    "step {step} differs from one process's SGD step on the step's {samples} samples; max |difference| "
    "{difference:.3g}":
        "el paso {step} es distinto del paso de SGD de un solo proceso sobre las {samples} muestras del paso; "
        "diferencia máxima (en valor absoluto) {difference:.3g}",
    "{steps} steps, {steps} all-reduces per rank (not {micro}), each step equal to one process's SGD step on "
    "{batches} micro-batches":
        "{steps} pasos, {steps} all-reduces por rank (no {micro}), cada paso igual al paso de SGD de un solo "
        "proceso sobre {batches} microlotes",
    # ddp_lessons.checks.set_epoch (exercise 7)
    "all {epochs} epochs visited the data in the same order (rank 0: {order}): call sampler.set_epoch(epoch) at "
    "the start of each epoch, before iterating the DataLoader":
        "las {epochs} épocas recorrieron los datos en el mismo orden (rank 0: {order}): llame a "
        "sampler.set_epoch(epoch) al inicio de cada época, antes de iterar sobre el DataLoader",
    "epoch {epoch} used epoch {previous}'s order: set_epoch comes too late; call sampler.set_epoch(epoch) before "
    "the loop over the DataLoader":
        "la época {epoch} usó el orden de la época {previous}: set_epoch llega demasiado tarde; llame a "
        "sampler.set_epoch(epoch) antes del bucle sobre el DataLoader",
    "epoch {epoch}, rank {rank} visited {got}, expected {expected} (set_epoch({epoch}))":
        "época {epoch}: el rank {rank} visitó {got}; se esperaba {expected} (set_epoch({epoch}))",
    "{epochs} epochs, each in a new order; in each, the ranks' shards cover all {size} samples":
        "{epochs} épocas, cada una en un orden nuevo; en cada una, los fragmentos de los ranks cubren las "
        "{size} muestras",
    # ddp_lessons.checks.memory (exercise 15)
    "Adam keeps two states per parameter, exp_avg and exp_avg_sq, each as large as the parameters":
        "Adam guarda dos estados por parámetro, exp_avg y exp_avg_sq, cada uno tan grande como los parámetros",
    "SGD with momentum keeps one state per parameter, its momentum_buffer":
        "SGD con momento guarda un estado por parámetro, su momentum_buffer",
    "plain SGD keeps no state at all": "SGD simple no guarda ningún estado",
    "DDP shards nothing: every rank is a full replica": "DDP no fragmenta nada: cada rank es una réplica completa",
    "ZeRO-1 shards only the optimizer state; every rank still holds all parameters and gradients":
        "ZeRO-1 solo fragmenta el estado del optimizador; cada rank sigue teniendo todos los parámetros y "
        "gradientes",
    "ZeRO-2 shards the optimizer state and the gradients; every rank keeps all parameters":
        "ZeRO-2 fragmenta el estado del optimizador y los gradientes; cada rank conserva todos los parámetros",
    "FSDP2 (ZeRO-3) shards parameters, gradients and optimizer state":
        "FSDP2 (ZeRO-3) fragmenta los parámetros, los gradientes y el estado del optimizador",
    "bytes_per_rank(...) must return a dict with the keys {keys}, got {got!r}":
        "bytes_per_rank(...) debe devolver un dict con las claves {keys}; devolvió {got!r}",
    "{who}: divide the {row} by the world size": "{who}: divida «{row}» entre el world size",
    "{who}: do not divide the {row} by the world size": "{who}: no divida «{row}» entre el world size",
    "the run uses gradient_as_bucket_view=True: the gradients are views into DDP's buckets, so count that memory "
    "once, not gradients plus buckets":
        "la ejecución usa gradient_as_bucket_view=True: los gradientes son vistas de los buckets de DDP, así que "
        "cuente esa memoria una sola vez, no gradientes más buckets",
    "{states}: count each state once ({per_parameter} bytes per parameter in fp32)":
        "{states}: cuente cada estado una sola vez ({per_parameter} bytes por parámetro en fp32)",
    "check the bytes per parameter of this row and whether this strategy divides it":
        "revise los bytes por parámetro de esta fila y si esta estrategia la divide",
    "{where}: {row} per rank should be {want:,.0f} bytes, your formula says {got:,.0f}: {hint}":
        "{where}: «{row}» por rank debería ser {want:,.0f} bytes, pero su fórmula da {got:,.0f}: {hint}",
    "mixed precision: the ZeRO paper's optimizer state also holds an fp32 master copy of the weights, 4 bytes per "
    "parameter, besides Adam's two fp32 states: K = 12":
        "precisión mixta: el estado del optimizador del artículo de ZeRO contiene también una copia maestra de "
        "los pesos en fp32, 4 bytes por parámetro, además de los dos estados en fp32 de Adam: K = 12",
    "{strategy}, mixed precision, Ψ = 7.5e9 on 64 GPUs": "{strategy}, precisión mixta, Ψ = 7.5e9 en 64 GPU",
    "every fp32 strategy and optimizer, and the ZeRO paper's figure (120, 31.4, 16.6, 1.9 GB per GPU)":
        "todas las estrategias y todos los optimizadores en fp32, y la cifra del artículo de ZeRO (120, 31.4, "
        "16.6, 1.9 GB por GPU)",
    "widths {widths} (Ψ = {psi:,}), {world_size} ranks, {optimizer}, seed {seed}":
        "anchos {widths} (Ψ = {psi:,}), {world_size} ranks, {optimizer}, semilla {seed}",
    "{strategy} measured with {where}": "{strategy} medido con {where}",
    "{first} and {second}: your formula equals the measured ledger ({where})":
        "{first} y {second}: su fórmula coincide con el inventario medido ({where})",
    "rank {rank}: {unsharded} of {total} parameters are not sharded: call fully_shard(layer, mesh=mesh, ...) on "
    "every Linear, then on the model":
        "rank {rank}: {unsharded} de {total} parámetros no están fragmentados: llame a "
        "fully_shard(layer, mesh=mesh, ...) en cada Linear y después en el modelo",
    "{missing} of the {linears} Linear layers are not blocks of their own: call fully_shard(layer, mesh=mesh, "
    "...) on each, so that forward gathers one block's parameters at a time instead of the whole model's":
        "{missing} de las {linears} capas Linear no son bloques propios: llame a fully_shard(layer, mesh=mesh, "
        "...) en cada una, para que la propagación hacia delante reúna los parámetros de un bloque cada vez en "
        "lugar de los del modelo entero",
    "the model itself is not sharded: after the layers, call fully_shard(model, mesh=mesh, ...) too; the root "
    "takes any parameter outside the blocks and drives FSDP2's initialization":
        "el propio modelo no está fragmentado: después de las capas, llame también a "
        "fully_shard(model, mesh=mesh, ...); la raíz se queda con cualquier parámetro que esté fuera de los "
        "bloques y dirige la inicialización de FSDP2",
    "rank {rank}: with reshard_after_forward=True, {gathered:,} bytes of full parameters were still gathered at "
    "the end of forward: pass reshard_after_forward to every fully_shard call, the model's too (left out, FSDP2 "
    "keeps the root gathered after forward)":
        "rank {rank}: con reshard_after_forward=True, al final de la propagación hacia delante seguían reunidos "
        "{gathered:,} bytes de parámetros completos: pase reshard_after_forward a todas las llamadas a "
        "fully_shard, también a la del modelo (si se omite, FSDP2 mantiene reunida la raíz después de la "
        "propagación hacia delante)",
    "rank {rank}: with reshard_after_forward=False the full parameters (4Ψ = {full:,} bytes) should stay "
    "gathered until backward, but {gathered:,} were: pass reshard_after_forward to each fully_shard call":
        "rank {rank}: con reshard_after_forward=False, los parámetros completos (4Ψ = {full:,} bytes) deberían "
        "seguir reunidos hasta la propagación hacia atrás, pero estaban reunidos {gathered:,}: pase "
        "reshard_after_forward a cada llamada a fully_shard",
    # ddp_lessons.memory_calculator (lesson 15)
    "DDP: every rank holds everything": "DDP: cada rank lo tiene todo",
    "ZeRO-1: optimizer state sharded": "ZeRO-1: estado del optimizador fragmentado",
    "ZeRO-2: optimizer state and gradients sharded": "ZeRO-2: estado del optimizador y gradientes fragmentados",
    "FSDP2 / ZeRO-3: parameters, gradients and optimizer state sharded":
        "FSDP2 / ZeRO-3: parámetros, gradientes y estado del optimizador fragmentados",
    "fp32 parameters, gradients and optimizer state": "parámetros, gradientes y estado del optimizador en fp32",
    "ZeRO paper: fp16 parameters and gradients, fp32 master copy and states":
        "artículo de ZeRO: parámetros y gradientes en fp16, copia maestra y estados en fp32",
    "parameters": "parámetros",
    "gradients": "gradientes",
    "optimizer": "optimizador",
    "buckets": "buckets",
    "activations": "activaciones",
    "total": "total",
    "Ψ = {psi:,} parameters, {world_size} rank(s), {strategy}, {optimizer}, {precision}":
        "Ψ = {psi:,} parámetros, {world_size} rank(s), {strategy}, {optimizer}, {precision}",
    "measured: this lesson's run with these settings (mean over ranks)":
        "medido: la ejecución de esta lección con estos ajustes (media sobre los ranks)",
    "measured: no run of this lesson had these settings":
        "medido: ninguna ejecución de esta lección tuvo estos ajustes",
    "per rank": "por rank",
    "predicted": "predicho",
    "measured": "medido",
    "parameters Ψ": "parámetros Ψ",
    "world size": "world size",
    "sharding": "fragmentación",
    "precision": "precisión",
    "activations (bytes)": "activaciones (bytes)",
}
