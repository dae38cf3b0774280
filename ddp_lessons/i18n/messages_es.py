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

    # ddp_lessons.base.quiz_forms: committing to an answer, how sure, numeric predictions and their reveal
    "sure": "seguro",
    "I think so": "creo que sí",
    "guessing": "adivinando",
    'confidence={value!r}: say "sure", "think" (I think so) or "guess"':
        'confidence={value!r}: indique "sure" (seguro), "think" (creo que sí) o "guess" (adivinando)',
    "How sure?": "¿Cuán seguro está?",
    "Check": "Comprobar",
    "(Your first answer, ({letter}), is the one recorded.)":
        "(La que queda registrada es su primera respuesta, ({letter}).)",
    '(Next time add how sure you are: confidence="sure", "think" or "guess".)':
        '(La próxima vez indique cuán seguro está: confidence="sure", "think" o "guess".)',
    "Pick an answer and how sure you are, then press Check.":
        "Elija una respuesta e indique cuán seguro está; luego pulse Comprobar.",
    "Prediction recorded: {value}{how}. Run the next cells: the run measures it.":
        "Predicción registrada: {value}{how}. Ejecute las celdas siguientes: la ejecución lo mide.",
    "Already recorded: {value}.": "Ya registrada: {value}.",
    "Your first prediction, {value}, is the one compared with the measurement.":
        "Su primera predicción, {value}, es la que se compara con la medición.",
    "Predict.": "Prediga.",
    'Answer with quiz.check(NUMBER, confidence="sure", "think" or "guess") before you run on, or type it in the '
    'box in JupyterLab.':
        'Responda con quiz.check(NÚMERO, confidence="sure", "think" o "guess") antes de seguir ejecutando, o '
        'escríbalo en la casilla en JupyterLab.',
    "Write your number down before you read on: the run below measures it.":
        "Anote su número antes de seguir leyendo: la ejecución de abajo lo mide.",
    "a number": "un número",
    "Commit": "Confirmar",
    "Type a number and say how sure you are, then press Commit.":
        "Escriba un número e indique cuán seguro está; luego pulse Confirmar.",
    "Measured: {measured}. No prediction was made in this kernel (quiz.predict asks for one before the run).":
        "Medido: {measured}. En este kernel no se hizo ninguna predicción (quiz.predict la pide antes de la "
        "ejecución).",
    "You predicted {predicted}, measured {measured}: exactly right.":
        "Usted predijo {predicted}; se midió {measured}: exacto.",
    "You predicted {predicted}, measured {measured} (off by {off}).":
        "Usted predijo {predicted}; se midió {measured} (error de {off}).",
    "Prediction check.": "Comprobación de la predicción.",
    "Measured": "Medido",
    "{value!r} is not a number": "{value!r} no es un número",

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
    "{what} in cell {cell}": "{what} en la celda {cell}",
    # ddp_lessons.grading.limits: which limit a notebook went over (the {note} of the message above)
    "used more than {amount} of memory": "usó más de {amount} de memoria",
    "ran more than {amount} processes and threads at once": "ejecutó más de {amount} procesos e hilos a la vez",
    "wrote more than {amount} to disk": "escribió más de {amount} en el disco",
    "printed more than {amount} of output": "imprimió más de {amount} de salida",
    # ddp_lessons.grading.feedback and ddp_lessons.grading.gradescope: hidden checks, a notebook not graded
    "**Not graded yet**: the grader could not run this notebook (a problem on the grading machines, not in your "
    "work); it will be graded again, and no points are counted until then.":
        "**Todavía sin corregir**: el corrector no pudo ejecutar este notebook (un problema de las máquinas de "
        "corrección, no de su trabajo); se corregirá de nuevo y, hasta entonces, no cuenta ningún punto.",
    " (hidden check)": " (comprobación oculta)",
    "**{title}** (a check the grader ran after yours) failed:":
        "**{title}** (una comprobación que el corrector ejecutó después de las suyas) no se superó:",
    "A check the grader ran after yours failed:":
        "Una comprobación que el corrector ejecutó después de las suyas no se superó:",
    "Every exercise ran; each check is listed below.":
        "Todos los ejercicios se ejecutaron; cada comprobación aparece a continuación.",

    # ddp_lessons.checks.common
    "expected one {name!r} record from each rank 0..{last}, got ranks {ranks}":
        "se esperaba un registro {name!r} de cada rank 0..{last}, pero llegaron los ranks {ranks}",
    # a check's hint, its fix from the second time (fail)
    "How to fix it: {fix}": "Cómo corregirlo: {fix}",
    "(Fails again the same way? Then this check also says how to fix it.)":
        "(¿Vuelve a fallar igual? Entonces esta comprobación también le dice cómo corregirlo.)",
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
    "rank {rank}'s weights differ from rank 0's after forward_backward (each rank built its model with its own "
    "seed, and nothing made them equal)":
        "los pesos del rank {rank} son distintos de los del rank 0 tras forward_backward (cada rank construyó su "
        "modelo con su propia semilla, y nada los igualó)",
    "wrap the model: DDP(model, ...) copies rank 0's weights to every rank when it is built":
        "envuelva el modelo: DDP(model, ...) copia los pesos del rank 0 a todos los ranks al construirse",
    "rank {rank}'s gradients differ from rank 0's: each rank kept the gradient of its own shard":
        "los gradientes del rank {rank} son distintos de los del rank 0: cada rank se quedó con el gradiente de "
        "su propio fragmento",
    "run the forward pass through the DDP wrapper (ddp_model(inputs)): only then does backward() all-reduce the "
    "gradients":
        "haga la propagación hacia delante a través del envoltorio de DDP (ddp_model(inputs)): solo así "
        "backward() hace el all-reduce de los gradientes",
    "the gradients are {scale:g}x one process's gradient on the whole batch":
        "los gradientes son {scale:g} veces el gradiente de un solo proceso sobre el lote entero",
    "use the mean loss on each rank: DDP averages across ranks, so a summed loss scales the gradient by the "
    "rank's batch size":
        "utilice la pérdida media en cada rank: DDP promedia entre los ranks, así que una pérdida sumada "
        "multiplica el gradiente por el tamaño del lote del rank",
    "every rank holds the same gradient, but not the whole batch's: max |difference| {difference:.3g}":
        "todos los ranks tienen el mismo gradiente, pero no el del lote entero: diferencia máxima (en valor "
        "absoluto) {difference:.3g}",
    "compute the mean squared error of the wrapper's output on this rank's inputs and targets, then call "
    "backward() once":
        "calcule el error cuadrático medio de la salida del envoltorio sobre las entradas y los objetivos de "
        "este rank, y llame a backward() una vez",
    "all {nproc} ranks hold one process's gradient on the whole batch (max |difference| {difference:.1e})":
        "los {nproc} ranks tienen el gradiente de un solo proceso sobre el lote entero (diferencia máxima en "
        "valor absoluto: {difference:.1e})",
    "forward_backward raised {error_type}: {error}, on rank {rank} (LOCAL_RANK {local_rank}) of a simulated job "
    "with {placement}, before it called DDP":
        "forward_backward lanzó {error_type}: {error}, en el rank {rank} (LOCAL_RANK {local_rank}) de un trabajo "
        "simulado con {placement}, antes de llamar a DDP",
    "this check runs forward_backward without real GPUs, with DDP replaced: take the GPU from `device` and let "
    "DDP do the rest":
        "esta comprobación ejecuta forward_backward sin GPU reales y con DDP sustituido: tome la GPU de "
        "`device` y deje el resto a DDP",
    "forward_backward never called DDP(...)": "forward_backward nunca llamó a DDP(...)",
    "wrap the model in DistributedDataParallel inside forward_backward":
        "envuelva el modelo en DistributedDataParallel dentro de forward_backward",
    "{nodes} node(s), {ranks} ranks per node and no GPU": "{nodes} nodo(s), {ranks} ranks por nodo y ninguna GPU",
    "{nodes} nodes, {ranks} ranks and {gpus} GPUs per node": "{nodes} nodos, {ranks} ranks y {gpus} GPU por nodo",
    "on a simulated job with {placement}, rank {rank} (LOCAL_RANK {local_rank}, its model on cuda:{local_rank})":
        "en un trabajo simulado con {placement}, el rank {rank} (LOCAL_RANK {local_rank}, con su modelo en "
        "cuda:{local_rank})",
    "{where} asked DDP for GPU {got}: its node's GPUs are cuda:0 to cuda:{last}. On one node a rank and its local "
    "rank are the same number, so a launch on one machine cannot show it":
        "{where} pidió a DDP la GPU {got}: las GPU de su nodo van de cuda:0 a cuda:{last}. En un solo nodo un "
        "rank y su rank local son el mismo número, así que un lanzamiento en una sola máquina no puede mostrarlo",
    "every node numbers its GPUs from 0: give DDP the GPU this rank computes on, device_ids=[device.index] (its "
    "LOCAL_RANK), not the global rank dist.get_rank(); or no device_ids at all, and DDP uses the device the model "
    "is on":
        "cada nodo numera sus GPU desde 0: dé a DDP la GPU en la que calcula este rank, "
        "device_ids=[device.index] (su LOCAL_RANK), no el rank global dist.get_rank(); o ningún device_ids, y "
        "DDP usa el dispositivo en el que está el modelo",
    "{where} asked DDP for device_ids={got}": "{where} pidió a DDP device_ids={got}",
    "give DDP the one GPU this rank computes on, device_ids=[device.index], or no device_ids at all":
        "dé a DDP la única GPU en la que calcula este rank, device_ids=[device.index], o ningún device_ids",
    "on CPU ranks, forward_backward gave DDP device_ids={got}: DDP refuses device_ids for a model on the CPU (a "
    "launch on a laptop ends in a ValueError)":
        "en ranks de CPU, forward_backward dio a DDP device_ids={got}: DDP rechaza device_ids para un modelo en "
        "la CPU (un lanzamiento en un portátil termina en un ValueError)",
    "pass device_ids only when device is a GPU (device.type == 'cuda'); on the CPU call DDP(model)":
        "pase device_ids solo cuando `device` sea una GPU (`device.type == 'cuda'`); en la CPU llame a "
        "DDP(model)",
    "on simulated jobs ({layouts}) every rank's DDP gets its own GPU on its node; on CPU ranks, no device_ids":
        "en trabajos simulados ({layouts}) el DDP de cada rank recibe su propia GPU en su nodo; en ranks de "
        "CPU, ningún device_ids",
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
    "as rank {rank} (LOCAL_RANK {local_rank}) on node 1 of a simulated job of {nodes} nodes with {gpus} GPUs each":
        "como rank {rank} (LOCAL_RANK {local_rank}) en el nodo 1 de un trabajo simulado de {nodes} nodos con "
        "{gpus} GPU cada uno",
    "{where}, setup() asked backend.choose for the device of rank {rank}: that node's GPUs are cuda:0 to "
    "cuda:{last}":
        "{where}, setup() pidió a backend.choose el dispositivo del rank {rank}: las GPU de ese nodo van de "
        "cuda:0 a cuda:{last}",
    "a node numbers its GPUs from 0: choose by LOCAL_RANK, this process's index on its own machine "
    "(int(os.environ['LOCAL_RANK'])), not by RANK":
        "un nodo numera sus GPU desde 0: elija según LOCAL_RANK, el índice de este proceso en su propia máquina "
        "(int(os.environ['LOCAL_RANK'])), no según RANK",
    "{where}, setup() never called dist.init_process_group": "{where}, setup() nunca llamó a dist.init_process_group",
    "join the default process group with dist.init_process_group(backend=...)":
        "únase al grupo de procesos por defecto con dist.init_process_group(backend=...)",
    "{where}, setup() joined with {got!r}, not the 'nccl' a GPU per rank calls for":
        "{where}, setup() se unió con {got!r}, no con el 'nccl' que pide una GPU por rank",
    "pass backend.choose(local_rank).backend to init_process_group, not a fixed name":
        "pase backend.choose(local_rank).backend a init_process_group, no un nombre fijo",
    "{where}, setup() never made its GPU current: every rank of the node would use cuda:0":
        "{where}, setup() nunca hizo actual su GPU: todos los ranks del nodo usarían cuda:0",
    "call torch.cuda.set_device(choice.device) before init_process_group":
        "llame a torch.cuda.set_device(choice.device) antes de init_process_group",
    "{where}, setup() made its GPU current only after init_process_group":
        "{where}, setup() hizo actual su GPU solo después de init_process_group",
    "call torch.cuda.set_device before init_process_group: nccl binds the group to the current device":
        "llame a torch.cuda.set_device antes de init_process_group: nccl vincula el grupo al dispositivo actual",
    "{where}, setup() made {got} current, not {gpu}": "{where}, setup() hizo actual {got}, no {gpu}",
    "make the device of this rank's LOCAL_RANK current: torch.cuda.set_device(choice.device)":
        "haga actual el dispositivo del LOCAL_RANK de este rank: torch.cuda.set_device(choice.device)",
    "{where}, setup() returned {got}, not {gpu}": "{where}, setup() devolvió {got}, no {gpu}",
    "return the device backend.choose chose for this rank":
        "devuelva el dispositivo que backend.choose eligió para este rank",
    "as rank {rank} (LOCAL_RANK {local_rank}) on the second of {nodes} simulated nodes, setup() sets {gpu} and "
    "joins with nccl":
        "como rank {rank} (LOCAL_RANK {local_rank}) en el segundo de {nodes} nodos simulados, setup() fija {gpu} "
        "y se une con nccl",
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
    # ddp_lessons.checks.bug_hunt (exercise 10)
    "wrap() raised {error_type}: {error}, on a simulated node with {gpus} GPUs (rank {rank}, local rank {local_rank}, "
    "after setup() made cuda:{local_rank} current). The check runs wrap() without real GPUs: take the GPU from "
    "`device` or `local_rank`":
        "wrap() lanzó {error_type}: {error}, en un nodo simulado con {gpus} GPU (rank {rank}, rank local "
        "{local_rank}, después de que setup() hiciera actual cuda:{local_rank}). La comprobación ejecuta wrap() sin "
        "GPU reales: tome la GPU de `device` o de `local_rank`",
    "wrap() never called DDP(...)": "wrap() nunca llamó a DDP(...)",
    "on node {node} of a {nodes}-node job with {gpus} GPUs per node, rank {rank} (local rank {local_rank}) asked DDP "
    "for GPU(s) {gpu_ids}: that node's GPUs are cuda:0 to cuda:{last}, and this rank's model sits on "
    "cuda:{local_rank}":
        "en el nodo {node} de un trabajo de {nodes} nodos con {gpus} GPU por nodo, el rank {rank} (rank local "
        "{local_rank}) pidió a DDP la(s) GPU {gpu_ids}: las GPU de ese nodo van de cuda:0 a cuda:{last}, y el "
        "modelo de este rank está en cuda:{local_rank}",
    "on CPU, DDP got device_ids={device_ids}: CPU models take none":
        "en la CPU, DDP recibió device_ids={device_ids}: los modelos en la CPU no llevan ninguno",
    "{nodes} nodes x {gpus} GPUs": "{nodes} nodos x {gpus} GPU",
    "on {layouts}, every rank's DDP uses its own node's GPU; on CPU, no device_ids":
        "en {layouts}, el DDP de cada rank usa la GPU de su propio nodo; en la CPU, sin device_ids",
    "building rank {rank}'s DataLoader raised ValueError: {error}":
        "al construir el DataLoader del rank {rank} se lanzó ValueError: {error}",
    "rank {rank} visited {count} samples, the whole data set: with {world_size} ranks, every epoch trains on each "
    "sample several times and takes no less time than one process":
        "el rank {rank} recorrió {count} muestras, todo el conjunto de datos: con {world_size} ranks, cada época "
        "entrena varias veces con cada muestra y no tarda menos que un solo proceso",
    "rank {rank} visited its samples in index order {first}...: no shuffle":
        "el rank {rank} recorrió sus muestras en el orden de los índices {first}...: sin barajar",
    "ranks 0 and 1 both visited samples {both}...": "los ranks 0 y 1 recorrieron ambos las muestras {both}...",
    "together the ranks do not cover the data set": "entre todos, los ranks no cubren el conjunto de datos",
    "{world_size} ranks visit disjoint, shuffled shards of {count} samples covering all {size}":
        "{world_size} ranks recorren fragmentos disjuntos y barajados de {count} muestras que cubren las {size}",
    "Trainer.train({epochs}) returned {got} epochs of visits":
        "Trainer.train({epochs}) devolvió los recorridos de {got} épocas",
    "rank {rank} visited its shard in the same order in all {epochs} epochs (each began {first}...): the shuffle "
    "happens once, not every epoch":
        "el rank {rank} recorrió su fragmento en el mismo orden en las {epochs} épocas (todas empezaron por "
        "{first}...): el barajado ocurre una sola vez, no en cada época",
    "each rank visits its shard in a new order in each of {epochs} epochs of Trainer.train":
        "cada rank recorre su fragmento en un orden nuevo en cada una de las {epochs} épocas de Trainer.train",
    "(no traceback)": "(sin traceback)",
    "the job hung: a rank waited for the other in a collective for 10 s and gave up. Where each rank waited: "
    "{where}":
        "el trabajo se bloqueó: un rank esperó al otro en una colectiva durante 10 s y se rindió. Dónde esperaba "
        "cada rank: {where}",
    "Trainer.train failed: {error}": "Trainer.train falló: {error}",
    "expected 3 epochs on both ranks, got {rows}": "se esperaban 3 épocas en ambos ranks, pero llegó {rows}",
    "rank {rank} began epoch {epoch} while rank 0 was still writing the previous epoch's checkpoint (the check "
    "makes that save slow, as on a network file system): a rank that loads it then, or a job stopped then, finds "
    "it incomplete. Every rank must wait until rank 0's checkpoint is complete before it goes on":
        "el rank {rank} empezó la época {epoch} mientras el rank 0 todavía escribía el checkpoint de la época "
        "anterior (la comprobación hace lento ese guardado, como en un sistema de archivos en red): un rank que lo "
        "cargue en ese momento, o un trabajo detenido en ese momento, lo encuentra incompleto. Cada rank debe "
        "esperar a que el checkpoint del rank 0 esté completo antes de seguir",
    "both ranks trained 3 epochs with a checkpoint after each, neither waiting for the other, and neither going "
    "on before the checkpoint was complete":
        "ambos ranks entrenaron 3 épocas con un checkpoint tras cada una, sin que ninguno esperara al otro y sin "
        "que ninguno siguiera antes de que el checkpoint estuviera completo",
    "the second training step failed with DDP's 'Expected to have finished reduction in the prior iteration "
    "before starting a new one': parameters without a gradient: {names}":
        "el segundo paso de entrenamiento falló con el error de DDP `Expected to have finished reduction in the "
        "prior iteration before starting a new one`: parámetros sin gradiente: {names}",
    "training Net failed: {error}": "el entrenamiento de Net falló: {error}",
    "Net trained 3 steps under DDP: every parameter got a gradient in every step":
        "Net entrenó 3 pasos con DDP: todos los parámetros recibieron un gradiente en cada paso",
    "DDP no longer stops at the second step, yet Net's parameters {names} still get no gradient in any step: "
    "wrap() passes {option}=True, so DDP works around them after every forward pass while they stay as "
    "initialised, and are saved and all-reduced for nothing":
        "DDP ya no se detiene en el segundo paso, pero los parámetros {names} de Net siguen sin recibir gradiente "
        "en ningún paso: wrap() pasa {option}=True, así que DDP los sortea tras cada forward mientras siguen como "
        "se inicializaron, y se guardan y se reducen con all-reduce para nada",
    "delete what forward() never uses ({names}) from Net, and call DDP(...) without {option}":
        "borre de Net lo que forward() nunca usa ({names}) y llame a DDP(...) sin {option}",
    "wrap() passes find_unused_parameters=True, yet every parameter of Net gets a gradient: DDP then walks the "
    "autograd graph after every forward pass looking for parameters it will not find (torch warns about it at "
    "the first step), a cost in every step of every run":
        "wrap() pasa find_unused_parameters=True, pero todos los parámetros de Net reciben gradiente: DDP recorre "
        "entonces el grafo de autograd tras cada forward buscando parámetros que no encontrará (torch lo advierte "
        "en el primer paso), un coste en cada paso de cada ejecución",
    "call DDP(...) without find_unused_parameters (its default is False): it is for models whose forward really "
    "skips parameters in some steps":
        "llame a DDP(...) sin find_unused_parameters (su valor por defecto es False): es para modelos cuyo forward "
        "de verdad se salta parámetros en algunos pasos",
    "every parameter DDP wraps must get a gradient in every step: delete from Net what forward() never uses "
    "({names})":
        "cada parámetro que DDP envuelve debe recibir un gradiente en cada paso: borre de Net lo que forward() "
        "nunca usa ({names})",
    "a DataLoader without the sampler": "un DataLoader sin el sampler",
    "no barrier at all between rank 0's save and the other ranks' load":
        "ninguna barrera entre el guardado del rank 0 y la carga de los demás ranks",
    "model.to(\"cuda\") without torch.cuda.set_device(local_rank)":
        "model.to(\"cuda\") sin torch.cuda.set_device(local_rank)",
    "a parameter that forward() never uses gets no gradient, so DDP's reducer waits for it and the second step "
    "fails with 'Expected to have finished reduction in the prior iteration'":
        "un parámetro que forward() nunca usa no recibe gradiente, así que el reductor de DDP lo espera y el "
        "segundo paso falla con `Expected to have finished reduction in the prior iteration`",
    "device_ids=[rank] names GPU RANK, which a node of the second machine does not have (invalid device "
    "ordinal), or another rank's GPU":
        "device_ids=[rank] nombra la GPU RANK, que un nodo de la segunda máquina no tiene (`invalid device "
        "ordinal`), o la GPU de otro rank",
    "the DataLoader refuses to be built: shuffle=True next to a sampler raises ValueError at once, on every rank":
        "el DataLoader se niega a construirse: shuffle=True junto a un sampler lanza ValueError en el acto, en "
        "cada rank",
    "without set_epoch every epoch visits the rank's shard in the same order: nothing fails, the model just "
    "sees the same sequence of batches every epoch":
        "sin set_epoch cada época recorre el fragmento del rank en el mismo orden: nada falla, el modelo "
        "simplemente ve la misma secuencia de lotes en cada época",
    "a barrier that only rank 0 reaches leaves rank 0 waiting at the first checkpoint while the others go on, "
    "until the process group's timeout ends the job":
        "una barrera a la que solo llega el rank 0 lo deja esperando en el primer checkpoint mientras los demás "
        "siguen, hasta que el tiempo límite del grupo de procesos termina el trabajo",
    "no letter (a to h) for {places}": "no hay letra (de a a h) para {places}",
    "write one letter per place, e.g. SYMPTOMS[\"{place}\"] = \"b\"":
        "escriba una letra por lugar, p. ej. SYMPTOMS[\"{place}\"] = \"b\"",
    "({got}) is not what the bug in {place} does: ({got}) is what the bug in {other} does":
        "({got}) no es lo que hace el error de {place}: ({got}) es lo que hace el error de {other}",
    "({got}) is not what the bug in {place} does: ({got}) is what {cause} does":
        "({got}) no es lo que hace el error de {place}: ({got}) es lo que hace {cause}",
    "each of the 5 bugs matched with what it does on a cluster":
        "cada uno de los 5 errores emparejado con lo que hace en un clúster",
    # ddp_lessons.checks.metrics (exercise 11)
    "{script} defines no function named evaluate": "{script} no define ninguna función llamada evaluate",
    "samples {missed}{more} were never evaluated by any rank, yet the accuracy came out right":
        "ningún rank evaluó nunca las muestras {missed}{more}, y aun así la exactitud salió correcta",
    " (the whole data set)": " (todo el conjunto de datos)",
    "rank {rank} evaluated {evaluated} samples{whole}, more than its share of {size} samples on {world} ranks, "
    "{share}: the right number at {world} times the work. Give each rank its own shard, range(rank, N, W), and "
    "combine the counts":
        "el rank {rank} evaluó {evaluated} muestras{whole}, más que su parte de {size} muestras en {world} ranks, "
        "{share}: el número correcto a costa de {world} veces el trabajo. Dé a cada rank su propio fragmento, "
        "range(rank, N, W), y combine los recuentos",
    "it equals the accuracy over DistributedSampler's padded shards: padding repeats {repeated} sample(s), counted "
    "twice. Give each rank range(rank, N, W), without padding, or de-duplicate gathered (index, result) pairs":
        "es igual a la exactitud sobre los fragmentos con relleno de DistributedSampler: el relleno repite "
        "{repeated} muestra(s), que se cuentan dos veces. Dé a cada rank range(rank, N, W), sin relleno, o elimine "
        "los duplicados de los pares (index, result) reunidos",
    "it equals the accuracy with drop_last=True: the last samples were never counted":
        "es igual a la exactitud con drop_last=True: las últimas muestras nunca se contaron",
    "it is the mean of the ranks' accuracies, which over-weights small shards: sum the correct and the seen "
    "counts over the ranks (all_reduce), then divide":
        "es la media de las exactitudes de los ranks, que da demasiado peso a los fragmentos pequeños: sume los "
        "recuentos de aciertos (correct) y de muestras vistas (seen) de todos los ranks (all_reduce), y después "
        "divida",
    "that is a percentage: return a fraction between 0 and 1":
        "eso es un porcentaje: devuelva una fracción entre 0 y 1",
    "count right predictions and samples on each rank, all-reduce both sums, then divide":
        "cuente las predicciones acertadas y las muestras en cada rank, haga el all-reduce de ambas sumas y "
        "después divida",
    "evaluate() still raises NotImplementedError: write it first":
        "evaluate() todavía lanza NotImplementedError: escríbala primero",
    "{name} still raises NotImplementedError where it says `# YOUR CODE HERE`: write your code there, run its "
    "%%writefile cell again, then this check (nothing was launched)":
        "{name} todavía lanza NotImplementedError donde dice `# YOUR CODE HERE`: escriba ahí su código, vuelva a "
        "ejecutar su celda %%writefile y después esta comprobación (no se lanzó nada)",
    "{size} samples on {world} ranks: rank {rank} divided by zero. A rank may have no samples at all (N < W): "
    "divide the all-reduced sums, not a rank's own counts":
        "{size} muestras en {world} ranks: el rank {rank} dividió entre cero. Un rank puede no tener ninguna "
        "muestra (N < W): divida las sumas tras el all-reduce, no los recuentos propios de un rank",
    "{size} samples on {world} ranks: rank {rank} raised {error_type}: {error}":
        "{size} muestras en {world} ranks: el rank {rank} lanzó {error_type}: {error}",
    "{size} samples on {world} ranks: the ranks called collectives a different number of times ({calls}), so "
    "some waited forever. With uneven shards ranks have different numbers of batches: sum locally, then "
    "all-reduce once after the loop":
        "{size} muestras en {world} ranks: los ranks llamaron a las colectivas un número distinto de veces "
        "({calls}), así que algunos esperaron para siempre. Con fragmentos desiguales, los ranks tienen números "
        "distintos de lotes: sume localmente y después haga un solo all-reduce tras el bucle",
    "evaluate() should return the accuracy as a number, got {got!r}":
        "evaluate() debería devolver la exactitud como un número, pero devolvió {got!r}",
    "{size} samples on {world} ranks: the ranks returned {results}, a 0 / 0. With fewer samples than ranks a "
    "rank may have none, and drop_last=True leaves all without any: shard with range(rank, N, W) and divide the "
    "all-reduced sums":
        "{size} muestras en {world} ranks: los ranks devolvieron {results}, un 0 / 0. Con menos muestras que "
        "ranks, un rank puede no tener ninguna, y drop_last=True deja a todos sin ninguna: fragmente con "
        "range(rank, N, W) y divida las sumas tras el all-reduce",
    "{size} samples on {world} ranks: the ranks returned different accuracies {results}: every rank must return "
    "the global accuracy (all-reduce the counts)":
        "{size} muestras en {world} ranks: los ranks devolvieron exactitudes distintas {results}: cada rank debe "
        "devolver la exactitud global (haga el all-reduce de los recuentos)",
    "{size} samples on {world} ranks: expected the single-process accuracy {expected:.6f}, got {got:.6f}: {hint}":
        "{size} muestras en {world} ranks: se esperaba la exactitud de un solo proceso, {expected:.6f}, pero "
        "salió {got:.6f}: {hint}",
    "{size} samples on {world} ranks: {hint}": "{size} muestras en {world} ranks: {hint}",
    "exact single-process accuracy on every rank for {pairs} (size, world) pairs, sizes {smallest}-{largest}, "
    "worlds up to {worlds}, each rank evaluating its own share":
        "la exactitud exacta de un solo proceso en cada rank para {pairs} pares (size, world), tamaños "
        "{smallest}-{largest}, world sizes de hasta {worlds}, y cada rank evalúa su propia parte",
    "evaluate() failed on a real {nproc}-rank job: {error}":
        "evaluate() falló en un trabajo real de {nproc} ranks: {error}",
    "the real {nproc}-rank job hung: ranks called different collectives (all-reduce once, after the loop, on "
    "every rank)":
        "el trabajo real de {nproc} ranks se bloqueó: los ranks llamaron a colectivas distintas (haga un solo "
        "all-reduce, tras el bucle, en todos los ranks)",
    "real {nproc}-rank job, {size} samples: rank {rank} returned {got:.6f}, expected {expected:.6f}":
        "trabajo real de {nproc} ranks, {size} muestras: el rank {rank} devolvió {got:.6f}; se esperaba "
        "{expected:.6f}",
    "the same on a real {nproc}-rank gloo job for sizes {sizes}":
        "lo mismo en un trabajo gloo real de {nproc} ranks para los tamaños {sizes}",
    "the accumulation steps multiply the global batch too":
        "los pasos de acumulación también multiplican el lote global",
    "multiply by the world size: every rank contributes its batch to each step":
        "multiplique por el world size: cada rank aporta su lote a cada paso",
    "global batch = batch per rank x accumulation steps x world size":
        "lote global = lote por rank x pasos de acumulación x world size",
    "the ratio is upside down: a larger global batch gets a larger learning rate":
        "el cociente está invertido: un lote global mayor lleva una tasa de aprendizaje mayor",
    "that is square-root scaling; the linear rule multiplies by new_batch / base_batch":
        "eso es escalado por raíz cuadrada; la regla lineal multiplica por new_batch / base_batch",
    "linear scaling: lr = base_lr x new_global_batch / base_batch":
        "escalado lineal: lr = base_lr x new_global_batch / base_batch",
    "accumulation steps = global batch / (batch per rank x world size) = {target} / ({batch} x {world}); raise "
    "ValueError when it does not divide":
        "pasos de acumulación = lote global / (lote por rank x world size) = {target} / ({batch} x {world}); "
        "lance ValueError cuando la división no es exacta",
    "global_batch{args} = {got}, expected {expected}: {hint}":
        "global_batch{args} = {got}; se esperaba {expected}: {hint}",
    "scaled_lr{args} = {got}, expected {expected}: {hint}": "scaled_lr{args} = {got}; se esperaba {expected}: {hint}",
    "accumulation_steps{args} = {got}, expected {expected}: {hint}":
        "accumulation_steps{args} = {got}; se esperaba {expected}: {hint}",
    "accumulation_steps(128, 32, 3) returned {got}: 3 ranks x 32 cannot make a global batch of 128 with whole "
    "micro-batches; raise ValueError":
        "accumulation_steps(128, 32, 3) devolvió {got}: 3 ranks x 32 no pueden formar un lote global de 128 con "
        "microlotes enteros; lance ValueError",
    "global batch, linear learning-rate scaling and accumulation steps are right":
        "el lote global, el escalado lineal de la tasa de aprendizaje y los pasos de acumulación son correctos",
    # ddp_lessons.checks.amp (exercise 13)
    "clip_grad_norm_ measured the gradients while they were still {scale:g}x too large (the loss scale), and cut "
    "them to almost nothing: call scaler.unscale_(optimizer) first, then clip, then scaler.step(optimizer)":
        "clip_grad_norm_ midió los gradientes cuando todavía eran {scale:g} veces demasiado grandes (la escala de "
        "la pérdida), y los recortó casi a nada: llame primero a scaler.unscale_(optimizer), después recorte, y "
        "después scaler.step(optimizer)",
    "its gradient norm was {norm:.3g}, above max_norm = {max_norm:g}, and nothing clipped it: call "
    "torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm) after scaler.unscale_(optimizer)":
        "la norma de su gradiente era {norm:.3g}, por encima de max_norm = {max_norm:g}, y nada la recortó: llame "
        "a torch.nn.utils.clip_grad_norm_(ddp_model.parameters(), max_norm) después de scaler.unscale_(optimizer)",
    "the gradients of the {micro} micro-batches add up, so the step used {micro}x the average gradient: divide "
    "each micro-batch's loss by {micro} before backward":
        "los gradientes de los {micro} microlotes se suman, así que el paso usó {micro} veces el gradiente medio: "
        "divida la pérdida de cada microlote entre {micro} antes de backward",
    "the gradients came out {scale:g}x too small: unscale_ and step divide by the scale, so backpropagate the "
    "scaled loss, scaler.scale(loss).backward()":
        "los gradientes salieron {scale:g} veces demasiado pequeños: scaler.unscale_ y scaler.step dividen entre la "
        "escala, así que propague hacia atrás la pérdida escalada, scaler.scale(loss).backward()",
    "the optimizer stepped on gradients still {scale:g}x too large: unscale them with scaler.unscale_(optimizer) "
    "before clipping, and step with scaler.step(optimizer)":
        "el optimizador dio el paso con gradientes todavía {scale:g} veces demasiado grandes: deshaga su escalado "
        "con scaler.unscale_(optimizer) antes de recortarlos, y dé el paso con scaler.step(optimizer)",
    "step {i} went wrong: {hint}": "el paso {i} salió mal: {hint}",
    "the model was never called in train_step": "el modelo nunca se llamó en train_step",
    "rank {rank}, step {i}: the model's outputs were {got}, not {want}: run every forward inside "
    "`with torch.autocast(device_type, dtype=dtype):`":
        "rank {rank}, paso {i}: las salidas del modelo eran {got}, no {want}: ejecute cada propagación hacia "
        "delante dentro de `with torch.autocast(device_type, dtype=dtype):`",
    "the loss was {got}: compute it inside the autocast region too, where autocast runs cross_entropy in fp32; "
    "only the backward goes outside":
        "la pérdida era {got}: calcúlela también dentro de la región de autocast, donde autocast ejecuta "
        "cross_entropy en fp32; solo la propagación hacia atrás va fuera",
    "rank {rank}, step {i}: the model ran {forwards} forward(s) for {micro_batches} micro-batches: one forward and "
    "one backward per micro-batch":
        "rank {rank}, paso {i}: el modelo ejecutó {forwards} propagación(es) hacia delante para {micro_batches} "
        "microlotes: una propagación hacia delante y una hacia atrás por microlote",
    "rank {rank}, step {i}: DDP all-reduced the gradients after every one of the {micro_batches} micro-batches: "
    "run the forward and backward of all but the last inside `with ddp_model.no_sync():`, so that only the last "
    "backward communicates":
        "rank {rank}, paso {i}: DDP hizo el all-reduce de los gradientes después de cada uno de los "
        "{micro_batches} microlotes: ejecute la propagación hacia delante y hacia atrás de todos salvo el último "
        "dentro de `with ddp_model.no_sync():`, para que solo se comunique la última propagación hacia atrás",
    "rank {rank}, step {i}: DDP ran {got} all-reduce(s) instead of {buckets}: {hint}":
        "rank {rank}, paso {i}: DDP ejecutó {got} all-reduce en lugar de {buckets}: {hint}",
    "the last micro-batch's forward and backward must run outside no_sync(), or the ranks never average their "
    "gradients":
        "la propagación hacia delante y hacia atrás del último microlote debe ejecutarse fuera de no_sync(), o los "
        "ranks nunca promedian sus gradientes",
    "one synchronised backward per step, in the last micro-batch":
        "una sola propagación hacia atrás sincronizada por paso, en el último microlote",
    "rank {rank}'s optimizer stepped at step {i} although the gradients held inf: call scaler.step(optimizer), not "
    "optimizer.step(); the scaler skips such steps":
        "el optimizador del rank {rank} dio el paso {i} aunque los gradientes contenían inf: llame a "
        "scaler.step(optimizer), no a optimizer.step(); el scaler omite esos pasos",
    "after step {i}, rank {rank}'s weights differ from rank 0's: every rank must step on the gradients DDP "
    "all-reduced in the last backward":
        "después del paso {i}, los pesos del rank {rank} son distintos de los del rank 0: cada rank debe dar el "
        "paso con los gradientes a los que DDP aplicó el all-reduce en la última propagación hacia atrás",
    "step {i}: the optimizer skipped but should have stepped: call scaler.step(optimizer) exactly once per step":
        "paso {i}: el optimizador omitió el paso, pero debería haberlo dado: llame a scaler.step(optimizer) "
        "exactamente una vez por paso",
    "step {i}: the optimizer stepped but should have skipped: call scaler.step(optimizer) exactly once per step":
        "paso {i}: el optimizador dio el paso, pero debería haberlo omitido: llame a scaler.step(optimizer) "
        "exactamente una vez por paso",
    "step {i}: the scale went from {before:g} to {after:g}: call scaler.update() once per step, after "
    "scaler.step(optimizer)":
        "paso {i}: la escala pasó de {before:g} a {after:g}: llame a scaler.update() una vez por paso, después de "
        "scaler.step(optimizer)",
    "step {i} made the weights nan: step with scaler.step(optimizer), which skips steps whose gradients hold inf "
    "or nan":
        "el paso {i} convirtió los pesos en nan: dé el paso con scaler.step(optimizer), que omite los pasos cuyos "
        "gradientes contienen inf o nan",
    "step {i} differs although the steps before it were right: zero the gradients after each step "
    "(optimizer.zero_grad()), or they add up across steps":
        "el paso {i} difiere aunque los pasos anteriores eran correctos: ponga los gradientes a cero después de "
        "cada paso (optimizer.zero_grad()), o se suman de un paso a otro",
    "after step {i} the weights differ from the replayed step (max |difference| {difference:.3g}): accumulate the "
    "gradients of every micro-batch (a backward for each, no zero_grad in between), then unscale_, clip, step, "
    "update":
        "después del paso {i}, los pesos difieren de los del paso reproducido (diferencia máxima en valor absoluto: "
        "{difference:.3g}): acumule los gradientes de todos los microlotes (una propagación hacia atrás por cada "
        "uno, sin zero_grad entre ellas), y después unscale_, recorte, step(), update()",
    "{name}: {micro_batches} micro-batches per step, forward in {dtype}, loss in fp32, one all-reduce per step, "
    "clipped at step(s) {clipped}; {steps} steps equal to the replay on all {nproc} ranks":
        "{name}: {micro_batches} microlotes por paso, propagación hacia delante en {dtype}, pérdida en fp32, un "
        "all-reduce por paso, recorte en el paso o los pasos {clipped}; {steps} pasos iguales a la reproducción "
        "en los {nproc} ranks",
    "; step {skipped} skipped on every rank, scale halved":
        "; paso {skipped} omitido en todos los ranks, escala reducida a la mitad",
    "backpropagate the scaled loss: scaler.scale(loss).backward()":
        "propague hacia atrás la pérdida escalada: scaler.scale(loss).backward()",
    "call scaler.update() after each scaler.step(optimizer)":
        "llame a scaler.update() después de cada scaler.step(optimizer)",
    "call scaler.update() after scaler.step(optimizer), not before it":
        "llame a scaler.update() después de scaler.step(optimizer), no antes",
    "call scaler.unscale_(optimizer) once per step, after the last backward, and scaler.update() after each "
    "scaler.step(optimizer)":
        "llame a scaler.unscale_(optimizer) una vez por paso, después de la última propagación hacia atrás, y a "
        "scaler.update() después de cada scaler.step(optimizer)",
    "the scaler's calls are out of order ({fix}); the order is scale(loss).backward() for each micro-batch -> "
    "unscale_(optimizer) -> clip -> step(optimizer) -> update()":
        "las llamadas al scaler están desordenadas ({fix}); el orden es scale(loss).backward() para cada "
        "microlote -> unscale_(optimizer) -> recorte -> step(optimizer) -> update()",
    "line {line}: backward() runs inside the autocast block: autocast is for the forward and the loss only; call "
    "scaler.scale(loss).backward() after the `with torch.autocast(...)` block":
        "línea {line}: backward() se ejecuta dentro del bloque de autocast: autocast es solo para la propagación "
        "hacia delante y la pérdida; llame a scaler.scale(loss).backward() después del bloque "
        "`with torch.autocast(...)`",
    # ddp_lessons.checks.sampler (exercise 5)
    "your shards are contiguous blocks of the epoch's order":
        "sus fragmentos son bloques contiguos del orden de la época",
    "shards are strided: rank r takes positions r, r+W, r+2W, ... of the epoch's order":
        "los fragmentos son intercalados: el rank r toma las posiciones r, r+W, r+2W, ... del orden de la época",
    "too few indices: {got} where every rank gets {count}":
        "faltan índices: {got} cuando cada rank recibe {count}",
    "when the size does not divide by world_size, the order is padded to ceil(size / world_size) * world_size by "
    "repeating it from its start (again and again if the data set is tiny)":
        "cuando el tamaño no es divisible entre world_size, el orden se rellena hasta "
        "ceil(size / world_size) * world_size repitiéndolo desde su principio (una y otra vez si el conjunto "
        "de datos es diminuto)",
    "too many indices with drop_last=True: {got} where every rank gets {count}":
        "sobran índices con drop_last=True: {got} cuando cada rank recibe {count}",
    "with drop_last=True the order is cut to floor(size / world_size) * world_size indices, with no padding":
        "con drop_last=True el orden se corta a floor(size / world_size) * world_size índices, sin relleno",
    "{got} indices where every rank gets {count}": "{got} índices cuando cada rank recibe {count}",
    "the padded positions hold {got}, expected {padded}":
        "las posiciones de relleno contienen {got}; se esperaba {padded}",
    "padding repeats the first indices of the epoch's order, in order (order + order[:padding])":
        "el relleno repite los primeros índices del orden de la época, en orden (order + order[:padding])",
    "this is epoch 0's order: the order does not change with the epoch":
        "este es el orden de la época 0: el orden no cambia con la época",
    "seed the generator with seed + epoch": "inicialice el generador con seed + epoch",
    "with shuffle=True the indices are not shuffled": "con shuffle=True los índices no están barajados",
    "first permute: torch.randperm(size, generator=g) with g = torch.Generator(); g.manual_seed(seed + epoch)":
        "primero permute: torch.randperm(size, generator=g) con g = torch.Generator(); "
        "g.manual_seed(seed + epoch)",
    "the indices differ from DistributedSampler's": "los índices difieren de los de DistributedSampler",
    "compare with the rule in lesson 5": "compare con la regla de la lección 5",
    "size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, shuffle={shuffle}, "
    "drop_last={drop_last}: expected {expected}, got {got}: {symptom}":
        "size={size}, world_size={world}, rank={rank}, epoch={epoch}, seed={seed}, shuffle={shuffle}, "
        "drop_last={drop_last}: se esperaba {expected}, pero llegó {got}: {symptom}",
    "identical to torch's DistributedSampler in all {count} cases tried":
        "idéntico al DistributedSampler de torch en los {count} casos probados",
    "size={size}, world_size={world}, drop_last={drop_last}: expected {expected}, got {got}":
        "size={size}, world_size={world}, drop_last={drop_last}: se esperaba {expected}, pero llegó {got}",
    "count every visit of every rank: padded indices are visited more than once, indices cut by drop_last zero "
    "times":
        "cuente cada visita de cada rank: los índices de relleno se visitan más de una vez, y los que corta "
        "drop_last, ninguna",
    "visit counts are right, padding and drop_last included":
        "los recuentos de visitas son correctos, con el relleno y drop_last incluidos",
    # ddp_lessons.checks.no_sync (exercise 6)
    "rank {rank} all-reduced {calls} times, once per micro-batch: no_sync() saved nothing":
        "el rank {rank} hizo {calls} all-reduces, uno por microlote: no_sync() no ahorró nada",
    "run the forward AND the backward of every micro-batch but the last of a step inside "
    "`with ddp_model.no_sync():` (DDP decides in the forward whether the next backward all-reduces, so a backward "
    "alone inside no_sync() still all-reduces)":
        "ejecute la propagación hacia delante Y la propagación hacia atrás de cada microlote de un paso salvo el "
        "último dentro de `with ddp_model.no_sync():` (DDP decide en la propagación hacia delante si la "
        "siguiente propagación hacia atrás hace el all-reduce, así que una propagación hacia atrás sola dentro "
        "de no_sync() lo sigue haciendo)",
    "no all-reduce ran on rank {rank}: the ranks never combined their gradients":
        "no se ejecutó ningún all-reduce en el rank {rank}: los ranks nunca combinaron sus gradientes",
    "run the backward of the last micro-batch of each step outside no_sync(), so DDP all-reduces the accumulated "
    "gradients":
        "haga la propagación hacia atrás del último microlote de cada paso fuera de no_sync(), para que DDP haga "
        "el all-reduce de los gradientes acumulados",
    "rank {rank} took {taken} optimizer steps for {micro} micro-batches: the last {tail} micro-batches never "
    "reached a step":
        "el rank {rank} dio {taken} pasos del optimizador para {micro} microlotes: los {tail} últimos microlotes "
        "nunca llegaron a un paso",
    "after the loop, step on what the last, shorter group accumulated (or step when a micro-batch is the last one "
    "of all, not only every accumulation_steps)":
        "tras el bucle, dé un paso con lo que acumuló el último grupo, más corto (o dé un paso cuando un microlote "
        "sea el último de todos, no solo cada accumulation_steps)",
    "rank {rank} took {taken} optimizer steps for {micro} micro-batches, expected {steps}":
        "el rank {rank} dio {taken} pasos del optimizador para {micro} microlotes; se esperaban {steps}",
    "step after every {k} micro-batches, and once more after the last micro-batch when {k} does not divide "
    "{micro}":
        "dé un paso cada {k} microlotes, y uno más tras el último microlote cuando {k} no divide a {micro}",
    "rank {rank} all-reduced {calls} times for {steps} steps: one step used gradients the ranks never combined":
        "el rank {rank} hizo {calls} all-reduces para {steps} pasos: un paso usó gradientes que los ranks nunca "
        "combinaron",
    "the last micro-batch of every step, the last step's included, runs its backward outside no_sync()":
        "el último microlote de cada paso, también el del último paso, hace su propagación hacia atrás fuera de "
        "no_sync()",
    "rank {rank} all-reduced {calls} times, expected {steps} (one per step)":
        "el rank {rank} hizo {calls} all-reduces; se esperaban {steps} (uno por paso)",
    "run every micro-batch but the last of a step inside no_sync(), forward and backward":
        "ejecute cada microlote de un paso salvo el último dentro de no_sync(), propagación hacia delante y "
        "hacia atrás",
    "after step {step}, rank {rank}'s weights differ from rank 0's":
        "tras el paso {step}, los pesos del rank {rank} son distintos de los del rank 0",
    "the step used gradients that were not all-reduced: the last backward before each step runs outside "
    "no_sync()":
        "el paso usó gradientes sin all-reduce: la última propagación hacia atrás antes de cada paso se ejecuta "
        "fuera de no_sync()",
    "step {step} moved the weights {n}x as far as one process's SGD step on the same samples":
        "el paso {step} movió los pesos {n} veces más que el paso de SGD de un solo proceso sobre las mismas "
        "muestras",
    "the gradients of the step's micro-batches add up in .grad: divide each micro-batch's loss by the number of "
    "micro-batches in its step":
        "los gradientes de los microlotes del paso se suman en .grad: divida la pérdida de cada microlote entre "
        "el número de microlotes de su paso",
    "the last step, on {n} micro-batches, moved the weights {scale:g}x as far as one process's SGD step on the "
    "same samples (the full steps were right)":
        "el último paso, sobre {n} microlotes, movió los pesos {scale:g} veces lo que el paso de SGD de un solo "
        "proceso sobre las mismas muestras (los pasos completos eran correctos)",
    "divide each micro-batch's loss by the number of micro-batches in its own step: {n} for the last one here, "
    "not accumulation_steps":
        "divida la pérdida de cada microlote entre el número de microlotes de su propio paso: {n} para el último "
        "aquí, no accumulation_steps",
    "step {step} differs from one process's SGD step although step 0 was right":
        "el paso {step} es distinto del paso de SGD de un solo proceso aunque el paso 0 era correcto",
    "zero the gradients after each optimizer step, or they carry over into the next one":
        "ponga los gradientes a cero tras cada paso del optimizador, o se arrastrarán al siguiente",
    "step {step} differs from one process's SGD step on the step's {samples} samples; max |difference| "
    "{difference:.3g}":
        "el paso {step} es distinto del paso de SGD de un solo proceso sobre las {samples} muestras del paso; "
        "diferencia máxima (en valor absoluto) {difference:.3g}",
    "each step: the mean squared error of each micro-batch, scaled by 1 / (micro-batches in the step), backward, "
    "and one optimizer step":
        "en cada paso: el error cuadrático medio de cada microlote, escalado por 1 / (microlotes del paso), la "
        "propagación hacia atrás y un paso del optimizador",
    "{steps} steps for {micro} micro-batches ({sizes}), {steps} all-reduces per rank (not {micro}), each step "
    "equal to one process's SGD step on the step's micro-batches of all ranks":
        "{steps} pasos para {micro} microlotes ({sizes}), {steps} all-reduces por rank (no {micro}), cada paso "
        "igual al paso de SGD de un solo proceso sobre los microlotes del paso de todos los ranks",
    # ddp_lessons.checks.set_epoch (exercise 7)
    "the first run": "la primera ejecución",
    "the resumed run": "la ejecución reanudada",
    "rank {rank}: {e}": "rank {rank}: {e}",
    "in {run} the ranks trained different epochs: {epochs}":
        "en {run} los ranks entrenaron épocas distintas: {epochs}",
    "every rank reads the same snapshot (_load), so every rank starts at the same epoch: compute the first epoch "
    "from what _load returns, the same way on every rank":
        "todos los ranks leen el mismo snapshot (_load), así que todos empiezan en la misma época: calcule la "
        "primera época a partir de lo que devuelve _load, igual en cada rank",
    "the first run (no snapshot yet) trained epochs {got}, expected to start at 0":
        "la primera ejecución (todavía sin snapshot) entrenó las épocas {got}; debía empezar en la 0",
    "with no snapshot (_load returns None) start at epoch 0":
        "sin snapshot (_load devuelve None) empiece en la época 0",
    "told to stop after epoch {stop}, the first run went on to epoch {last}":
        "con la orden de detenerse tras la época {stop}, la primera ejecución siguió hasta la época {last}",
    "return from train() right after epoch stop_after is saved":
        "vuelva de train() justo después de guardar la época stop_after",
    "told to stop after epoch {stop}, the first run stopped after epoch {last}":
        "con la orden de detenerse tras la época {stop}, la primera ejecución se detuvo tras la época {last}",
    "stop after epoch stop_after, not before it": "deténgase tras la época stop_after, no antes",
    "the resumed run started over at epoch 0: the first run had already finished epochs {done}":
        "la ejecución reanudada volvió a empezar en la época 0: la primera ejecución ya había terminado las "
        "épocas {done}",
    "_load() returns the last epoch the snapshot finished: start at the epoch after it":
        "_load() devuelve la última época que terminó el snapshot: empiece en la época siguiente",
    "the resumed run trained epoch {epoch} again: the first run had finished it (its snapshot says so)":
        "la ejecución reanudada volvió a entrenar la época {epoch}: la primera ejecución ya la había terminado "
        "(su snapshot lo dice)",
    "_load() returns the last epoch the snapshot finished: start at that epoch + 1":
        "_load() devuelve la última época que terminó el snapshot: empiece en esa época + 1",
    "the resumed run trained epochs {got}; after a stop at epoch {stop}, an uninterrupted run of {total} epochs "
    "goes on with {expected}":
        "la ejecución reanudada entrenó las épocas {got}; tras detenerse en la época {stop}, una ejecución sin "
        "interrupciones de {total} épocas sigue con {expected}",
    "start at the epoch after the snapshot's and go on to epochs - 1, none skipped":
        "empiece en la época siguiente a la del snapshot y siga hasta epochs - 1, sin saltarse ninguna",
    "all {epochs} epochs visited the data in the same order (rank 0: {order}...), in the first run and in the "
    "resumed one":
        "las {epochs} épocas recorrieron los datos en el mismo orden (rank 0: {order}...), en la primera "
        "ejecución y en la reanudada",
    "a DistributedSampler shuffles with seed + epoch, and its epoch is what set_epoch last set (0 in a new "
    "process): call sampler.set_epoch(epoch) at the start of each epoch":
        "un DistributedSampler baraja con seed + epoch, y su época es la que fijó el último set_epoch (0 en un "
        "proceso nuevo): llame a sampler.set_epoch(epoch) al inicio de cada época",
    "epoch {epoch} visited the order of seed {epoch}, not of the run's seed {seed}: with your script, runs "
    "started with different seeds visit the data in the same orders":
        "la época {epoch} visitó el orden de la semilla {epoch}, no el de la semilla de la ejecución, {seed}: "
        "con su script, ejecuciones arrancadas con semillas distintas recorren los datos en los mismos órdenes",
    "leave the sampler's seed as it was built (the run's seed, the same on every rank) and tell it the epoch "
    "with sampler.set_epoch(epoch): it shuffles with seed + epoch":
        "deje la semilla del sampler como se construyó (la de la ejecución, la misma en cada rank) e indíquele "
        "la época con sampler.set_epoch(epoch): baraja con seed + epoch",
    "the resumed run's first epoch, {epoch}, visited epoch {other}'s order (an uninterrupted run visits a new "
    "one), while the first run's epochs were right":
        "la primera época de la ejecución reanudada, la {epoch}, visitó el orden de la época {other} (una "
        "ejecución sin interrupciones visita uno nuevo), mientras que las épocas de la primera ejecución eran "
        "correctas",
    "a resumed run is a new process with a new sampler, whose epoch is 0 until set_epoch says otherwise: call "
    "sampler.set_epoch(epoch) at the start of each epoch, from the epoch about to run, not at the end of the "
    "previous one":
        "una ejecución reanudada es un proceso nuevo con un sampler nuevo, cuya época es 0 hasta que set_epoch "
        "diga otra cosa: llame a sampler.set_epoch(epoch) al inicio de cada época, con la época que va a "
        "ejecutarse, no al final de la anterior",
    "in {run}, epoch {epoch} visited epoch {other}'s order":
        "en {run}, la época {epoch} visitó el orden de la época {other}",
    "set the sampler's epoch to the epoch about to run, sampler.set_epoch(epoch), before iterating the "
    "DataLoader":
        "fije la época del sampler en la que va a ejecutarse, sampler.set_epoch(epoch), antes de iterar sobre "
        "el DataLoader",
    "in {run}, epoch {epoch}, rank {rank} visited {got}, expected {expected}":
        "en {run}, época {epoch}: el rank {rank} visitó {got}; se esperaba {expected}",
    "build the DistributedSampler once, with seed=SEED, and call sampler.set_epoch(epoch) at the start of each "
    "epoch":
        "construya el DistributedSampler una vez, con seed=SEED, y llame a sampler.set_epoch(epoch) al inicio "
        "de cada época",
    "stopped after epoch {stop} and resumed: epochs {epochs}, each once and in the order an uninterrupted run "
    "visits, on all {nproc} ranks":
        "detenido tras la época {stop} y reanudado: las épocas {epochs}, cada una una vez y en el orden que "
        "visita una ejecución sin interrupciones, en los {nproc} ranks",
    # ddp_lessons.checks.restart (exercise 12)
    "rank 0 wrote straight into the snapshot's path ({writes}): that first empties the file that held the last "
    "complete snapshot. A rank killed during that write leaves only half a snapshot, and every restart fails to "
    "load it":
        "el rank 0 escribió directamente en la ruta del snapshot ({writes}): eso vacía primero el archivo que "
        "contenía el último snapshot completo. Si se mata a un rank durante esa escritura, solo queda medio "
        "snapshot, y cada reinicio falla al cargarlo",
    "never write the path itself, neither with torch.save nor with a copy: write the new snapshot to a temporary "
    "file in the same folder (e.g. f'{{path}}.tmp'), then rename it onto the path with os.replace(tmp, path), "
    "which swaps the whole file at once":
        "no escriba nunca en la propia ruta, ni con torch.save ni con una copia: escriba el snapshot nuevo en un "
        "archivo temporal de la misma carpeta (p. ej. f'{{path}}.tmp') y después renómbrelo sobre la ruta con "
        "os.replace(tmp, path), que sustituye el archivo entero de una vez",
    "rank 0 never saved a snapshot": "el rank 0 nunca guardó un snapshot",
    "save_snapshot writes the snapshot on rank 0 with torch.save":
        "save_snapshot escribe el snapshot en el rank 0 con torch.save",
    "rank {rank} saved too: several processes wrote the same snapshot at once, with identical weights":
        "el rank {rank} también guardó: varios procesos escribieron el mismo snapshot a la vez, con pesos "
        "idénticos",
    "only rank 0 writes the snapshot: if dist.get_rank() == 0: ...":
        "solo el rank 0 escribe el snapshot: `if dist.get_rank() == 0: ...`",
    "rank 0 called torch.save {calls} times for {snapshots} snapshots":
        "el rank 0 llamó a torch.save {calls} veces para {snapshots} snapshots",
    "save_snapshot saves once each time it is called: one torch.save per snapshot":
        "save_snapshot guarda una vez cada vez que se le llama: un torch.save por snapshot",
    "save_snapshot returned on the other ranks before rank 0 had finished writing snapshot {number} of {count}: "
    "no rank waited for rank 0's write, so a rank could go on, or read the path, while it still held the "
    "previous snapshot":
        "save_snapshot retornó en los demás ranks antes de que el rank 0 terminara de escribir el snapshot "
        "{number} de {count}: ningún rank esperó a la escritura del rank 0, así que un rank podía seguir, o leer "
        "la ruta, mientras esta aún contenía el snapshot anterior",
    "end save_snapshot with dist.barrier() on every rank, after rank 0's write and rename: no rank leaves it "
    "before rank 0 has finished":
        "termine save_snapshot con dist.barrier() en todos los ranks, después de la escritura y el renombrado "
        "del rank 0: ningún rank sale de ella antes de que el rank 0 haya terminado",
    "in the uninterrupted run rank {rank} trained steps {steps} of epoch {epoch}":
        "en la ejecución sin interrupción, el rank {rank} entrenó los pasos {steps} de la época {epoch}",
    "from step 0 (nothing trained yet) epoch_batches yields every batch of the epoch, each with its step, "
    "numbered from 0":
        "desde el paso 0 (nada entrenado aún), epoch_batches produce todos los lotes de la época, cada uno con "
        "su paso, numerados desde 0",
    "in the uninterrupted run rank {rank} trained epochs {first} and {second} with the same batches in the same "
    "order: every epoch repeats the first one's shuffle":
        "en la ejecución sin interrupción, el rank {rank} entrenó las épocas {first} y {second} con los mismos "
        "lotes en el mismo orden: cada época repite el barajado de la primera",
    "a DistributedSampler shuffles with seed + epoch, and its epoch is what set_epoch last set (0 in a new "
    "sampler): call loader.sampler.set_epoch(epoch) in epoch_batches, before iterating":
        "un DistributedSampler baraja con seed + epoch, y su época es la que fijó set_epoch por última vez (0 en "
        "un sampler nuevo): llame a loader.sampler.set_epoch(epoch) en epoch_batches, antes de iterar",
    "the restarted job began again at epoch 0, step 0, though the last complete snapshot held epoch {epoch} after "
    "{step} steps: everything before was trained twice":
        "el trabajo reiniciado volvió a empezar en la época 0, paso 0, aunque el último snapshot completo "
        "contenía la época {epoch} después de {step} pasos: todo lo anterior se entrenó dos veces",
    "load_snapshot loads the snapshot at path when there is one and returns the position it holds, (epoch, step); "
    "(0, 0) only without a snapshot":
        "load_snapshot carga el snapshot de path cuando lo hay y devuelve la posición que contiene, (epoch, "
        "step); (0, 0) solo si no hay snapshot",
    "the restarted job began at step 0 of epoch {epoch}, but the last complete snapshot was taken after {step} "
    "steps of it: those {step} batches were trained twice":
        "el trabajo reiniciado empezó en el paso 0 de la época {epoch}, pero el último snapshot completo se tomó "
        "después de {step} pasos de ella: esos {step} lotes se entrenaron dos veces",
    "keep the step in the snapshot (save_snapshot's step) and return (epoch, step) from load_snapshot":
        "guarde el paso en el snapshot (el argumento `step` de save_snapshot) y devuelva `(epoch, step)` desde "
        "load_snapshot",
    "pass map_location=device to torch.load, the rank's own device that load_snapshot receives":
        "pase map_location=device a torch.load, el dispositivo propio del rank que recibe load_snapshot",
    "pass map_location=device, the device load_snapshot receives, not a fixed cuda:N":
        "pase map_location=device, el dispositivo que recibe load_snapshot, no un cuda:N fijo",
    "rank {rank} trained no step after the restart": "el rank {rank} no entrenó ningún paso después del reinicio",
    "after load_snapshot the loop goes on from the position it returned: return the snapshot's (epoch, step), "
    "and let epoch_batches yield the steps from first_step on":
        "después de load_snapshot, el bucle sigue desde la posición que devolvió: devuelva el (epoch, step) del "
        "snapshot, y que epoch_batches produzca los pasos desde first_step en adelante",
    "the snapshot's step is the number of that epoch's steps already trained, and steps count from 0: the first "
    "step to train after a resume is that number itself. Neither load_snapshot nor epoch_batches adds or takes "
    "away one":
        "el paso del snapshot es el número de pasos de esa época ya entrenados, y los pasos se cuentan desde 0: "
        "el primer paso que hay que entrenar tras una reanudación es ese mismo número. Ni load_snapshot ni "
        "epoch_batches suman ni restan uno",
    "after the restart rank {rank} trained epoch {epoch} from its first batch again, though the snapshot already "
    "held {step} steps of it: those batches were trained twice":
        "después del reinicio, el rank {rank} volvió a entrenar la época {epoch} desde su primer lote, aunque el "
        "snapshot ya contenía {step} pasos de ella: esos lotes se entrenaron dos veces",
    "epoch_batches(loader, epoch, first_step) yields the epoch's batches from step first_step on: leave out the "
    "first first_step batches of the epoch's order":
        "epoch_batches(loader, epoch, first_step) produce los lotes de la época desde el paso first_step en "
        "adelante: deje fuera los first_step primeros lotes del orden de la época",
    "after the restart rank {rank} trained the batch of epoch {epoch}, step {again} again: the snapshot already "
    "held its update, so that batch counted twice":
        "después del reinicio, el rank {rank} volvió a entrenar el lote de la época {epoch}, paso {again}: el "
        "snapshot ya contenía su actualización, así que ese lote contó dos veces",
    "after the restart rank {rank} went on with the batch of epoch {epoch}, step {next}: the batch of step {step}, "
    "the first one the snapshot did not hold, was never trained":
        "después del reinicio, el rank {rank} siguió con el lote de la época {epoch}, paso {next}: el lote del "
        "paso {step}, el primero que el snapshot no contenía, nunca se entrenó",
    "after the restart rank {rank} trained epoch {epoch} with the batches epoch 0 has at those steps: the "
    "restarted process drew epoch 0's shuffle, not epoch {epoch}'s":
        "después del reinicio, el rank {rank} entrenó la época {epoch} con los lotes que la época 0 tiene en esos "
        "pasos: el proceso reiniciado obtuvo el barajado de la época 0, no el de la época {epoch}",
    "a restarted process builds a new DistributedSampler, whose epoch is 0: call loader.sampler.set_epoch(epoch) "
    "in epoch_batches every time, also when it resumes in the middle of an epoch":
        "un proceso reiniciado construye un DistributedSampler nuevo, cuya época es 0: llame a "
        "loader.sampler.set_epoch(epoch) en epoch_batches siempre, también cuando reanuda en mitad de una época",
    "after the restart rank {rank} trained the right batch but numbered it epoch {got_epoch}, step {got_step}, not "
    "epoch {epoch}, step {step}":
        "después del reinicio, el rank {rank} entrenó el lote correcto, pero lo numeró como época {got_epoch}, "
        "paso {got_step}, no como época {epoch}, paso {step}",
    "number each batch with its step in the whole epoch: the first one after a resume at first_step is step "
    "first_step, not 0":
        "numere cada lote con su paso en la época completa: el primero tras reanudar en first_step es el paso "
        "first_step, no el 0",
    "after the restart rank {rank} began at epoch {got_epoch}, step {got_step} with other samples than the "
    "uninterrupted run trained at epoch {epoch}, step {step}":
        "después del reinicio, el rank {rank} empezó en la época {got_epoch}, paso {got_step}, con otras "
        "muestras que las que entrenó la ejecución sin interrupción en la época {epoch}, paso {step}",
    "the restarted job trains, from the snapshot's position on, the batches the uninterrupted run trained there: "
    "the epoch's own shuffle, from step first_step on":
        "el trabajo reiniciado entrena, desde la posición del snapshot en adelante, los lotes que la ejecución "
        "sin interrupción entrenó ahí: el barajado propio de la época, desde el paso first_step en adelante",
    "after the restart rank {rank} trained other batches than the uninterrupted run from epoch {epoch}, step "
    "{step} on (the first difference: epoch {at_epoch}, step {at_step})":
        "después del reinicio, el rank {rank} entrenó otros lotes que la ejecución sin interrupción desde la "
        "época {epoch}, paso {step} (la primera diferencia: época {at_epoch}, paso {at_step})",
    "every step once, in each epoch's own order: set the sampler's epoch each time epoch_batches is called, and "
    "leave out only the steps the snapshot already holds":
        "cada paso una vez, en el orden propio de cada época: fije la época del sampler cada vez que se llama a "
        "epoch_batches, y deje fuera solo los pasos que el snapshot ya contiene",
    "the restarted job could not load the snapshot: its weights are named {keys}..., with the 'module.' of the "
    "DDP wrapper, and load_snapshot loads them into the plain model, whose names have no such prefix":
        "el trabajo reiniciado no pudo cargar el snapshot: sus pesos se llaman {keys}..., con el 'module.' del "
        "envoltorio de DDP, y load_snapshot los carga en el modelo sin envolver, cuyos nombres no llevan ese "
        "prefijo",
    "save ddp_model.module.state_dict(), the weights of the model inside the DDP wrapper: a plain model loads "
    "them":
        "guarde ddp_model.module.state_dict(), los pesos del modelo que está dentro del envoltorio de DDP: un "
        "modelo sin envolver los carga",
    "the restarted processes start with the snapshot the killed job left at the path: run the script twice with "
    "the same --snapshot to see the error, and make load_snapshot load that file":
        "los procesos reiniciados arrancan con el snapshot que el trabajo al que se mató dejó en la ruta: ejecute "
        "el script dos veces con el mismo --snapshot para ver el error, y haga que load_snapshot cargue ese "
        "archivo",
    "no rank loaded the snapshot after the restart": "ningún rank cargó el snapshot después del reinicio",
    "load_snapshot loads the snapshot on every rank when there is one":
        "load_snapshot carga el snapshot en todos los ranks cuando lo hay",
    "rank {rank} resumed at the right step with the right batches but ended with other weights than the "
    "uninterrupted run ({got} != {expected})":
        "el rank {rank} reanudó en el paso correcto con los lotes correctos, pero terminó con otros pesos que la "
        "ejecución sin interrupción ({got} != {expected})",
    "the snapshot holds, and load_snapshot restores, the weights and the optimizer's state (SGD's momentum): "
    "model.load_state_dict and optimizer.load_state_dict":
        "el snapshot contiene, y load_snapshot restaura, los pesos y el estado del optimizador (el momento de "
        "SGD): model.load_state_dict y optimizer.load_state_dict",
    "the script fails even without a crash; fix this first:\n{error}":
        "el script falla incluso sin provocar ningún fallo; corrija esto primero:\n{error}",
    "the given loop should snapshot in the middle of epochs; it saved at {saved_at}":
        "el bucle ya escrito debería guardar snapshots en mitad de las épocas; guardó en {saved_at}",
    "after rank 0 was killed while writing a snapshot, the restarted job failed:\n{failure}":
        "después de que se matara al rank 0 mientras escribía un snapshot, el trabajo reiniciado falló:\n{failure}",
    "rank 0 was killed while writing the snapshot of epoch {killed_epoch}, step {killed_step}; the job restarted "
    "at epoch {epoch}, step {step} (the last complete snapshot), trained the same batches as the uninterrupted "
    "run and ended bit-identical to it ({expected})":
        "se mató al rank 0 mientras escribía el snapshot de la época {killed_epoch}, paso {killed_step}; el "
        "trabajo se reinició en la época {epoch}, paso {step} (el último snapshot completo), entrenó los mismos "
        "lotes que la ejecución sin interrupción y terminó idéntico bit a bit a ella ({expected})",
    # ddp_lessons.checks.accelerate_port (exercise 14)
    "Accelerate saw {processes} process(es), {distributed_type}: on a machine without (enough) GPUs create "
    "Accelerator(cpu=True), or it does not join torchrun's process group":
        "Accelerate vio {processes} proceso(s), {distributed_type}: en una máquina sin GPU (o sin suficientes) "
        "cree Accelerator(cpu=True); si no, no se une al grupo de procesos de torchrun",
    "the model is a {model_type}, not DistributedDataParallel: pass it to accelerator.prepare (together with the "
    "optimizer and the DataLoader) and train the model prepare returns":
        "el modelo es un {model_type}, no un DistributedDataParallel: páselo a accelerator.prepare (junto con el "
        "optimizador y el DataLoader) y entrene el modelo que devuelve prepare",
    "process {rank} trained on {samples} samples in one epoch, the whole dataset: pass the DataLoader to "
    "accelerator.prepare, so each process gets its share":
        "el proceso {rank} entrenó con {samples} muestras en una época, todo el conjunto de datos: pase el "
        "DataLoader a accelerator.prepare, para que cada proceso reciba su parte",
    "process {rank} trained on {samples} samples in one epoch, the DDP script's ranks on {expected}: same batch "
    "size per process":
        "el proceso {rank} entrenó con {samples} muestras en una época, y los ranks del script DDP con "
        "{expected}: el mismo tamaño de lote por proceso",
    "process {rank} stepped the optimizer {steps} times in one epoch, after every batch; the DDP script steps "
    "{expected} times, once every {accumulate} batches: create the Accelerator with "
    "gradient_accumulation_steps=args.accumulate and train each batch inside `with accelerator.accumulate(model):`":
        "el proceso {rank} dio {steps} pasos del optimizador en una época, uno tras cada lote; el script DDP da "
        "{expected}, uno cada {accumulate} lotes: cree el Accelerator con "
        "gradient_accumulation_steps=args.accumulate y entrene cada lote dentro de "
        "`with accelerator.accumulate(model):`",
    "process {rank} stepped the optimizer {steps} times in one epoch, the DDP script {expected}: one step every "
    "{accumulate} batches":
        "el proceso {rank} dio {steps} pasos del optimizador en una época, y el script DDP {expected}: un paso "
        "cada {accumulate} lotes",
    "run again with the same --snapshot folder, the port started at epoch 0 again: register the epoch with "
    "accelerator.register_for_checkpointing(progress) and call resume(accelerator, args.snapshot) after "
    "accelerator.prepare, before the training loop":
        "ejecutada otra vez con la misma carpeta de --snapshot, la versión portada volvió a empezar en la época 0: "
        "registre la época con accelerator.register_for_checkpointing(progress) y llame a "
        "resume(accelerator, args.snapshot) después de accelerator.prepare, antes del bucle de entrenamiento",
    "after one epoch, the resumed port started at epoch {epoch}":
        "tras una época, la versión portada reanudada empezó en la época {epoch}",
    "process {rank} evaluated {samples} samples, the dataset has {expected}: the last round of an uneven loader "
    "is padded with repeated samples; gather with accelerator.gather_for_metrics, which drops them "
    "(accelerator.gather keeps them)":
        "el proceso {rank} evaluó {samples} muestras, y el conjunto de datos tiene {expected}: la última ronda de "
        "un loader desigual se rellena con muestras repetidas; recoja con accelerator.gather_for_metrics, que "
        "las descarta (accelerator.gather las conserva)",
    "process {rank} evaluated {samples} samples, the dataset has {expected}: let each process score its share "
    "of a prepared DataLoader, and gather the results of all processes with accelerator.gather_for_metrics":
        "el proceso {rank} evaluó {samples} muestras, y el conjunto de datos tiene {expected}: deje que cada "
        "proceso evalúe su parte de un DataLoader preparado, y recoja los resultados de todos los procesos con "
        "accelerator.gather_for_metrics",
    "process {rank} ended with other weights than process 0: train the model that accelerator.prepare returned, "
    "and step with accelerator.backward(loss) and optimizer.step()":
        "el proceso {rank} terminó con otros pesos que el proceso 0: entrene el modelo que devolvió "
        "accelerator.prepare, y dé los pasos con accelerator.backward(loss) y optimizer.step()",
    "the final weights differ from DDP's (max |difference| {gap:.3g}) and the loader shuffles with a {sampler}: "
    "create the Accelerator with dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True), so the "
    "shuffle is seeded like DistributedSampler(seed=...)":
        "los pesos finales difieren de los de DDP (diferencia máxima en valor absoluto: {gap:.3g}) y el loader "
        "baraja con un {sampler}: cree el Accelerator con "
        "dataloader_config=DataLoaderConfiguration(use_seedable_sampler=True), para que el barajado se "
        "inicialice con la semilla como en DistributedSampler(seed=...)",
    "the final weights differ from DDP's by up to {gap:.3g} (allowed: {tolerance:g}): call "
    "accelerator.backward(loss) inside accelerator.accumulate (it divides the loss by the accumulation steps, as "
    "the DDP script does), and keep the seed, learning rate, momentum and batch size":
        "los pesos finales difieren de los de DDP hasta en {gap:.3g} (se permite {tolerance:g}): llame a "
        "accelerator.backward(loss) dentro de accelerator.accumulate (divide la pérdida entre los pasos de "
        "acumulación, como hace el script DDP), y mantenga la semilla, la tasa de aprendizaje, el momento y el "
        "tamaño de lote",
    "the port's evaluation gave MSE {mse:.6g}, the DDP script's {expected:.6g}: the mean of the squared errors of "
    "every sample, each counted once":
        "la evaluación de la versión portada dio un MSE de {mse:.6g}, y la del script DDP {expected:.6g}: la "
        "media de los errores al cuadrado de todas las muestras, cada una contada una vez",
    "{nproc} processes, DistributedDataParallel, {steps} optimizer steps and {samples} samples per epoch and "
    "process; resumed at epoch 1; evaluated {eval_samples} samples (MSE {mse:.4g}); final weights within "
    "{tolerance:g} of the DDP script's (max |difference| {gap:.2g})":
        "{nproc} procesos, DistributedDataParallel, {steps} pasos del optimizador y {samples} muestras por época "
        "y proceso; reanudado en la época 1; {eval_samples} muestras evaluadas (MSE {mse:.4g}); pesos finales a "
        "menos de {tolerance:g} de los del script DDP (diferencia máxima en valor absoluto: {gap:.2g})",
    "the port fails in its first epoch; fix this first:\n{error}":
        "la versión portada falla en su primera época; corrija esto primero:\n{error}",
    "run again with the same --snapshot folder, the port wrote checkpoint_0 again, which exists: call "
    "resume(accelerator, args.snapshot) after accelerator.prepare, before the training loop (it loads the newest "
    "complete snapshot and numbers the next one after it), and register the epoch with "
    "accelerator.register_for_checkpointing(progress) before it":
        "ejecutada otra vez con la misma carpeta de --snapshot, la versión portada volvió a escribir "
        "checkpoint_0, que ya existe: llame a resume(accelerator, args.snapshot) después de accelerator.prepare, "
        "antes del bucle de entrenamiento (carga el snapshot completo más reciente y numera el siguiente a "
        "continuación), y registre antes la época con accelerator.register_for_checkpointing(progress)",
    "run again from its snapshot, the port fails:\n{error}":
        "ejecutada otra vez desde su snapshot, la versión portada falla:\n{error}",
    # ddp_lessons.checks.checkpoint (exercise 8)
    "rank {rank} saved too: several processes wrote the same file at once (each torch.save truncates it, so one "
    "can cut what another wrote), with identical weights":
        "el rank {rank} también guardó: varios procesos escribieron el mismo archivo a la vez (cada torch.save lo "
        "trunca, así que uno puede cortar lo que otro escribió), con pesos idénticos",
    "only rank 0 writes the checkpoint: if dist.get_rank() == 0: torch.save(...)":
        "solo el rank 0 escribe el checkpoint: `if dist.get_rank() == 0: torch.save(...)`",
    "rank {rank} called torch.load before rank 0's torch.save had finished: it read the previous run's "
    "checkpoint, or a half-written file (the check leaves one run's file at the path and makes rank 0's save "
    "slow, as on a network file system)":
        "el rank {rank} llamó a torch.load antes de que terminara el torch.save del rank 0: leyó el checkpoint de "
        "la ejecución anterior, o un archivo a medio escribir (la comprobación deja en la ruta el archivo de una "
        "ejecución y hace lento el guardado del rank 0, como en un sistema de archivos en red)",
    "put dist.barrier() after rank 0's torch.save and before any rank's torch.load: a rank leaves the barrier "
    "only once every rank has reached it, rank 0 after its save returned":
        "ponga dist.barrier() después del torch.save del rank 0 y antes del torch.load de cualquier rank: un "
        "rank sale de la barrera solo cuando todos los ranks han llegado a ella, el rank 0 después de que su "
        "guardado haya retornado",
    "rank {rank} loaded the checkpoint without any dist.barrier() before it: it found the file by itself, which "
    "holds only where every rank sees rank 0's writes at once and in order (not on a network file system), and "
    "only when no earlier run left a file at the path":
        "el rank {rank} cargó el checkpoint sin ningún dist.barrier() antes: encontró el archivo por su cuenta, "
        "lo que solo funciona donde cada rank ve las escrituras del rank 0 al instante y en orden (no en un "
        "sistema de archivos en red), y solo cuando ninguna ejecución anterior dejó un archivo en la ruta",
    "let every rank wait in dist.barrier() after rank 0's torch.save instead of polling for the file":
        "haga que cada rank espere en dist.barrier() después del torch.save del rank 0 en lugar de sondear "
        "el archivo",
    "the checkpoint's keys start with 'module.': a plain model (not wrapped in DDP) refuses them":
        "las claves del checkpoint empiezan por 'module.': un modelo normal (no envuelto en DDP) las rechaza",
    "save ddp_model.module.state_dict(), the weights of the model inside the DDP wrapper":
        "guarde ddp_model.module.state_dict(), los pesos del modelo que hay dentro del envoltorio de DDP",
    "rank {rank}'s torch.load may run code from the file: a checkpoint is a pickle, and unpickling it in full "
    "can call any function the file names":
        "el torch.load del rank {rank} puede ejecutar código del archivo: un checkpoint es un pickle, y "
        "deserializarlo por completo puede llamar a cualquier función que el archivo nombre",
    "call torch.load(..., weights_only=True): it rebuilds tensors and plain containers only":
        "llame a torch.load(..., weights_only=True): solo reconstruye tensores y contenedores simples",
    "rank {rank} loads the tensors onto the device rank 0 saved them from: on GPUs every rank's copy lands on "
    "cuda:0 (memory piles up there, and the tensors sit on another device than the rank's model)":
        "el rank {rank} carga los tensores en el dispositivo desde el que los guardó el rank 0: con GPU, la copia "
        "de cada rank acaba en cuda:0 (la memoria se acumula allí, y los tensores quedan en otro dispositivo "
        "que el modelo del rank)",
    "pass map_location=device to torch.load, the rank's own device":
        "pase map_location=device a torch.load, el propio dispositivo del rank",
    "rank {rank} loads the tensors onto {place}, a device written into the code, while its own device is "
    "{device}: on GPUs every rank's copy lands on that one GPU (and without a GPU the load fails)":
        "el rank {rank} carga los tensores en {place}, un dispositivo escrito en el código, mientras que su "
        "propio dispositivo es {device}: con GPU, la copia de cada rank acaba en esa única GPU (y sin GPU la "
        "carga falla)",
    "pass map_location=device, the device load_checkpoint receives, not a fixed cuda:N":
        "pase map_location=device, el dispositivo que recibe load_checkpoint, no un cuda:N fijo",
    "rank 0 never called torch.save": "el rank 0 nunca llamó a torch.save",
    "rank 0 writes ddp_model.module.state_dict() with torch.save":
        "el rank 0 escribe ddp_model.module.state_dict() con torch.save",
    "rank {rank} never loaded the checkpoint: its model kept the weights it was built with":
        "el rank {rank} nunca cargó el checkpoint: su modelo conservó los pesos con los que se construyó",
    "every rank loads the checkpoint: a restarted job has no other copy of the weights":
        "cada rank carga el checkpoint: un trabajo reiniciado no tiene otra copia de los pesos",
    "rank {rank}'s resumed model is not the trained one":
        "el modelo reanudado del rank {rank} no es el entrenado",
    "load the state dict you read into the model: model.load_state_dict(state)":
        "cargue en el modelo el state dict que ha leído: model.load_state_dict(state)",
    "rank 0 saved once; all {nproc} ranks loaded the complete file (weights_only=True) and resumed with the "
    "trained weights (checksum {checksum})":
        "el rank 0 guardó una vez; los {nproc} ranks cargaron el archivo completo (weights_only=True) y "
        "reanudaron con los pesos entrenados (suma de comprobación {checksum})",
    # ddp_lessons.checks.scaling (exercise 9)
    "speedup and efficiency are swapped: return (speedup, efficiency)":
        "la aceleración y la eficiencia están intercambiadas: devuelva (speedup, efficiency)",
    "speedup is inverted: it is above 1 when W ranks are faster than one":
        "la aceleración está invertida: es mayor que 1 cuando W ranks son más rápidos que uno",
    "in weak scaling W ranks process W times the samples of one rank per step: speedup is the throughput ratio "
    "W * T(1) / T(W), not T(1) / T(W)":
        "en el escalado débil, W ranks procesan por paso W veces las muestras de un rank: la aceleración es el "
        "cociente de rendimientos W * T(1) / T(W), no T(1) / T(W)",
    "efficiency is speedup / W (1.0 = perfect scaling), not speedup * W":
        "la eficiencia es speedup / W (1.0 = escalado perfecto), no speedup * W",
    "speedup = throughput(W) / throughput(1); efficiency = speedup / W":
        "aceleración = throughput(W) / throughput(1); eficiencia = speedup / W",
    "return one (speedup, efficiency) per world size {expected}, got keys {got}":
        "devuelva un (speedup, efficiency) por cada world size {expected}; las claves recibidas son {got}",
    "seconds {seconds}, world size {world}: expected (speedup, efficiency) ({speedup:.4g}, {efficiency:.4g}), "
    "got {got}. {hint}":
        "seconds {seconds}, world size {world}: se esperaba (speedup, efficiency) = ({speedup:.4g}, "
        "{efficiency:.4g}), pero llegó {got}. {hint}",
    "strong-scaling speedup and efficiency are right, slowdowns included":
        "la aceleración y la eficiencia del escalado fuerte son correctas, ralentizaciones incluidas",
    "weak-scaling speedup and efficiency are right":
        "la aceleración y la eficiencia del escalado débil son correctas",
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
    "{who}: divide the {row} row by the world size": "{who}: divida la fila «{row}» entre el world size",
    "{who}: do not divide the {row} row by the world size":
        "{who}: no divida la fila «{row}» entre el world size",
    "the run uses gradient_as_bucket_view=True: the gradients are views into DDP's buckets, so count that memory "
    "once, not gradients plus buckets":
        "la ejecución usa gradient_as_bucket_view=True: los gradientes son vistas de los buckets de DDP, así que "
        "cuente esa memoria una sola vez, no gradientes más buckets",
    "{states}: count each state once ({per_parameter} bytes per parameter in fp32)":
        "{states}: cuente cada estado una sola vez ({per_parameter} bytes por parámetro en fp32)",
    "check the bytes per parameter of this row and whether this strategy divides it":
        "revise los bytes por parámetro de esta fila y si esta estrategia la divide",
    "{where}: the {row} row should be {want:,.0f} bytes per rank, your formula says {got:,.0f}: {hint}":
        "{where}: la fila «{row}» debería ser de {want:,.0f} bytes por rank, pero su fórmula da {got:,.0f}: "
        "{hint}",
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
    "parameter tensors T": "tensores de parámetros T",
    "gathered": "reunidos",
    "buffers": "buffers",
    # ddp_lessons.plots.memory (lesson 15)
    "no bar for strategy {strategy!r}: give records of {known}":
        "no hay barra para la estrategia {strategy!r}: pase registros de {known}",
    "no records to plot": "no hay registros que dibujar",
    "{strategy} on {n} ranks: records of ranks {ranks}, not one per rank":
        "{strategy} en {n} ranks: registros de los ranks {ranks}, no uno por rank",
    "the records come from {count} different models: plot one model at a time":
        "los registros vienen de {count} modelos distintos: dibuje un modelo cada vez",
    "{strategy} on {n} ranks: the ranks disagree on gradient_as_bucket_view":
        "{strategy} en {n} ranks: los ranks no coinciden en gradient_as_bucket_view",
    "bytes per rank": "bytes por rank",
    "each rank's total": "total de cada rank",
    "formula (sharding.predict)": "fórmula (sharding.predict)",
    "world size (ranks)": "world size (ranks)",
    "After the step, Ψ = {psi:,} parameters with Adam in fp32: bars are the mean over the ranks":
        "Tras el paso, Ψ = {psi:,} parámetros con Adam en fp32: cada barra es la media sobre los ranks",
    "total after the step": "total tras el paso",
    "FSDP2 at the end of forward (mean over the ranks)":
        "FSDP2 al final de la propagación hacia delante (media sobre los ranks)",
    # ddp_lessons.checks.ring (exercise 16)
    "{function} did not return within {timeout:g} s ({where}): look for a loop that never ends or a receive "
    "nobody sends to":
        "{function} no retornó en {timeout:g} s ({where}): busque un bucle que no termina nunca o una recepción a "
        "la que nadie envía",
    "on {worlds} ranks halving_doubling_allreduce equals dist.all_reduce; on {n} ranks rank 1 talked to ranks "
    "{peers} and sent {sent} bytes of a {size:,}-byte tensor, step by step":
        "en {worlds} ranks halving_doubling_allreduce es igual a dist.all_reduce; en {n} ranks el rank 1 habló con "
        "los ranks {peers} y envió {sent} bytes de un tensor de {size:,} bytes, paso a paso",
    "in reduce-scatter step k = 1, 2, …, log2(n), exchange with rank r XOR d, d = n/2, n/4, …, 1: send the half of "
    "your current part that the partner keeps, add the half it sends into the half you keep; then the all-gather "
    "meets the same partners in reverse order, each time sending all you hold":
        "en el paso k = 1, 2, …, log2(n) del reduce-scatter, intercambie con el rank r XOR d, d = n/2, n/4, …, 1: "
        "envíe la mitad de su parte actual que conserva el compañero y sume la mitad que él envía en la mitad que "
        "usted conserva; después, el all-gather encuentra a los mismos compañeros en orden inverso, enviando cada "
        "vez todo lo que tiene",
    "rank {rank} sent {messages} messages to ranks {peers}": "el rank {rank} envió {messages} mensajes a los ranks {peers}",
    "on {n} ranks rank {rank} sent nothing point to point, yet the sums are right: the check counts what dist.send, "
    "dist.isend and dist.batch_isend_irecv send":
        "en {n} ranks el rank {rank} no envió nada punto a punto, y sin embargo las sumas son correctas: la "
        "comprobación cuenta lo que envían dist.send, dist.isend y dist.batch_isend_irecv",
    "on {n} ranks {shown}: always the next rank, in 2(n-1) = {count} steps. That is the lesson's ring; its step "
    "count, and the latency α it pays per step, grow with n":
        "en {n} ranks {shown}: siempre al rank siguiente, en 2(n-1) = {count} pasos. Ese es el anillo de la "
        "lección; su número de pasos, y la latencia α que paga en cada uno, crecen con n",
    "on {n} ranks {shown}: every other rank. A direct exchange moves as many bytes as a ring, but each rank opens "
    "a connection to all n-1 others and pays α for each of them":
        "en {n} ranks {shown}: a todos los demás ranks. Un intercambio directo mueve tantos bytes como un anillo, "
        "pero cada rank abre una conexión con los n-1 restantes y paga α por cada uno",
    "on {n} ranks {shown}, where halving-doubling takes {steps} steps, a partner r XOR d in each (here {expected}); "
    "the first difference is at step {step}":
        "en {n} ranks {shown}, donde el halving-doubling da {steps} pasos, con un compañero r XOR d en cada uno "
        "(aquí {expected}); la primera diferencia está en el paso {step}",
    "reduce-scatter": "reduce-scatter",
    "all-gather": "all-gather",
    "on {n} ranks, in step {step} ({phase}) rank {rank} sent {sent:,} bytes to rank {peer}, {share:.3g} of the "
    "{size:,}-byte tensor, where that step carries {expected:.3g} of it":
        "en {n} ranks, en el paso {step} ({phase}) el rank {rank} envió {sent:,} bytes al rank {peer}, {share:.3g} "
        "del tensor de {size:,} bytes, cuando ese paso lleva {expected:.3g} de él",
    "the script could not be imported ({error})": "no se pudo importar el script ({error})",
    "define halving_doubling_allreduce(tensor), with its imports, and run nothing when the file is imported":
        "defina halving_doubling_allreduce(tensor), con sus imports, y no ejecute nada al importar el archivo",
    "no rank reported on {n} ranks: did the check's launch fail?":
        "ningún rank informó en {n} ranks: ¿falló el lanzamiento de la comprobación?",
    "run the check again; if it fails the same way, run the script's cell first":
        "ejecute la comprobación otra vez; si falla igual, ejecute antes la celda del script",
    "fix the error above, run the %%writefile cell, then the check":
        "corrija el error de arriba, ejecute la celda %%writefile y luego la comprobación",
    "halving_doubling_allreduce called dist.{name}, a collective":
        "halving_doubling_allreduce llamó a dist.{name}, una colectiva",
    "build it from point-to-point calls only: dist.isend/dist.irecv or dist.batch_isend_irecv":
        "constrúyalo solo con llamadas punto a punto: dist.isend/dist.irecv o dist.batch_isend_irecv",
    "on {n} ranks rank {rank}'s tensor came back unchanged":
        "en {n} ranks el tensor del rank {rank} volvió sin cambios",
    "on {n} ranks the result is the mean, not the sum": "en {n} ranks el resultado es la media, no la suma",
    "on {n} ranks rank {rank}'s result differs from dist.all_reduce in {wrong} of {numel} elements":
        "en {n} ranks el resultado del rank {rank} difiere del de dist.all_reduce en {wrong} de {numel} elementos",
    "work in place: add what arrives into the half you keep, and in the all-gather receive into the half you gave "
    "away; both partners of a step split the same part of the tensor at the same index":
        "trabaje in situ: sume lo que llega en la mitad que conserva y, en el all-gather, reciba en la mitad que "
        "cedió; los dos compañeros de un paso parten la misma parte del tensor en el mismo índice",
    "STEPS_ON_64[\"{name}\"] is {got!r}, not a whole number of steps":
        "STEPS_ON_64[\"{name}\"] es {got!r}, no un número entero de pasos",
    "write each algorithm's steps on {world} ranks, reduce-scatter and all-gather together":
        "escriba los pasos de cada algoritmo en {world} ranks, reduce-scatter y all-gather juntos",
    "{got} steps for {name} on {world} ranks: that is one of its two phases":
        "{got} pasos para {name} en {world} ranks: esa es una de sus dos fases",
    "{got} steps for the ring on {world} ranks: a ring of n ranks passes a chunk on n - 1 times per phase, not n":
        "{got} pasos para el anillo en {world} ranks: un anillo de n ranks pasa un trozo n - 1 veces por fase, no n",
    "{got} steps for {name} on {world} ranks": "{got} pasos para {name} en {world} ranks",
    "the ring: n - 1 steps of reduce-scatter and n - 1 of all-gather; halving-doubling: log2(n) steps each (the "
    "distance halves from n/2 to 1, then doubles back)":
        "el anillo: n - 1 pasos de reduce-scatter y n - 1 de all-gather; el halving-doubling: log2(n) pasos cada "
        "uno (la distancia se reduce a la mitad de n/2 a 1 y luego se duplica de vuelta)",
    "on {world} ranks the ring takes {ring} steps and halving-doubling {hd}: at α = {alpha:g} µs per step, "
    "{ring_ms:.2f} ms against {hd_ms:.2f} ms of latency alone, whatever the message's size":
        "en {world} ranks el anillo da {ring} pasos y el halving-doubling {hd}: con α = {alpha:g} µs por paso, "
        "{ring_ms:.2f} ms frente a {hd_ms:.2f} ms solo de latencia, sea cual sea el tamaño del mensaje",
    "the check's ranks failed: {error}": "los ranks de la comprobación fallaron: {error}",
    "on {worlds} ranks and {sizes} tensor sizes (some not divisible by the world size) ring_allreduce equals "
    "dist.all_reduce, and each rank sends 2(n-1)/n of the tensor (on {world} ranks, rank 0 sent {sent:,} of "
    "{total:,} bytes)":
        "en {worlds} ranks y con {sizes} tamaños de tensor (algunos no divisibles entre el world size), "
        "ring_allreduce es igual a dist.all_reduce, y cada rank envía 2(n-1)/n del tensor (en {world} ranks, el "
        "rank 0 envió {sent:,} de {total:,} bytes)",
    "the script could not be imported ({error}): it must define ring_allreduce(tensor), with its imports, and "
    "run nothing when imported":
        "no se pudo importar el script ({error}): debe definir ring_allreduce(tensor), con sus imports, y no "
        "ejecutar nada al importarse",
    "on {n} ranks ring_allreduce never finished: every rank waited for a peer (gloo's timeout: {error}). A "
    "blocking dist.send waits until the receiver is receiving, so when every rank sends first they wait for each "
    "other forever. Post the send and the receive together: dist.isend + dist.irecv (or dist.batch_isend_irecv "
    "with P2POp), then wait() for both":
        "en {n} ranks ring_allreduce no terminó nunca: cada rank esperó a otro (tiempo límite de gloo: {error}). "
        "Un dist.send bloqueante espera hasta que el receptor está recibiendo, así que cuando todos los ranks "
        "envían primero, se esperan unos a otros para siempre. Lance el envío y la recepción juntos: dist.isend + "
        "dist.irecv (o dist.batch_isend_irecv con P2POp), y después llame a wait() en ambos",
    "ring_allreduce raised NotImplementedError: write it where the cell says `# YOUR CODE HERE`":
        "ring_allreduce lanzó NotImplementedError: escríbala donde la celda dice `# YOUR CODE HERE`",
    ": torch.chunk(tensor, n) can return fewer than n chunks (e.g. 9 elements on 4 ranks give 3 chunks of 3); "
    "torch.tensor_split(tensor, n) always returns n":
        ": torch.chunk(tensor, n) puede devolver menos de n trozos (p. ej., 9 elementos en 4 ranks dan 3 trozos "
        "de 3); torch.tensor_split(tensor, n) siempre devuelve n",
    ": the size need not divide by the world size; split with torch.tensor_split(tensor, n), whose chunks differ "
    "by at most one element":
        ": el tamaño no tiene por qué ser divisible entre el world size; divida con torch.tensor_split(tensor, n), "
        "cuyos trozos difieren como mucho en un elemento",
    "on {n} ranks, rank {rank} raised {message} for a tensor of {numel} elements{where}{advice}":
        "en {n} ranks, el rank {rank} lanzó {message} con un tensor de {numel} elementos{where}{advice}",
    " at {file}:{line}: {source}": " en {file}:{line}: {source}",
    "ring_allreduce called dist.{name}: build the ring from point-to-point calls only (dist.isend/dist.irecv, "
    "dist.send/dist.recv or dist.batch_isend_irecv)":
        "ring_allreduce llamó a dist.{name}: construya el anillo solo con llamadas punto a punto "
        "(dist.isend/dist.irecv, dist.send/dist.recv o dist.batch_isend_irecv)",
    "on {n} ranks rank {rank}'s tensor came back unchanged: ring_allreduce works in place, like dist.all_reduce: "
    "add the received chunks into the tensor's own chunks (tensor.tensor_split(n) returns views) and receive the "
    "finished chunks into them":
        "en {n} ranks, el tensor del rank {rank} volvió sin cambios: ring_allreduce trabaja in situ, como "
        "dist.all_reduce: sume los trozos recibidos a los propios trozos del tensor (tensor.tensor_split(n) "
        "devuelve vistas) y reciba en ellos los trozos terminados",
    "on {n} ranks the result is the mean: all_reduce sums (leave out the division by {n})":
        "en {n} ranks el resultado es la media: all_reduce suma (quite la división entre {n})",
    " Only sizes that do not divide by the world size are wrong: split with torch.tensor_split(tensor, n) and use "
    "each chunk's own size.":
        " Solo fallan los tamaños que no son divisibles entre el world size: divida con "
        "torch.tensor_split(tensor, n) y use el tamaño propio de cada trozo.",
    "on {n} ranks rank {rank}'s result differs from dist.all_reduce in {wrong} of {numel} elements.{note} Check "
    "the chunk indices: in reduce-scatter step s rank r sends chunk (r - s) mod n to rank r + 1 and adds what "
    "arrives into chunk (r - s - 1) mod n; in all-gather step s it sends chunk (r + 1 - s) mod n and overwrites "
    "chunk (r - s) mod n":
        "en {n} ranks, el resultado del rank {rank} difiere del de dist.all_reduce en {wrong} de {numel} "
        "elementos.{note} Revise los índices de los trozos: en el paso s del reduce-scatter, el rank r envía el "
        "trozo (r - s) mod n al rank r + 1 y suma lo que llega al trozo (r - s - 1) mod n; en el paso s del "
        "all-gather envía el trozo (r + 1 - s) mod n y sobrescribe el trozo (r - s) mod n",
    "no rank sent anything point to point, yet the sums are right: the check counts what dist.send, dist.isend "
    "and dist.batch_isend_irecv send; build the ring from them":
        "ningún rank envió nada punto a punto, y aun así las sumas son correctas: la comprobación cuenta lo que "
        "envían dist.send, dist.isend y dist.batch_isend_irecv; construya el anillo con ellas",
    "on {n} ranks rank {rank} sent {sent:,} bytes, {times:.0f}x the {size:,}-byte tensor, and another rank only "
    "{least:,}: that is a reduce to one rank and a broadcast back. That rank's link carries n - 1 tensors each "
    "way, more with every rank added; in a ring every rank sends 2(n-1)/n of the tensor ({ring:,.0f} bytes here)":
        "en {n} ranks, el rank {rank} envió {sent:,} bytes, {times:.0f}x el tensor de {size:,} bytes, y otro rank "
        "solo {least:,}: eso es una reducción a un rank y un broadcast de vuelta. El enlace de ese rank lleva n - 1 "
        "tensores en cada sentido, más con cada rank que se añade; en un anillo, cada rank envía 2(n-1)/n del "
        "tensor ({ring:,.0f} bytes aquí)",
    "on {n} ranks every rank sent {least:.1f}x to {most:.1f}x the tensor ({size:,} bytes), a ring sends 2(n-1)/n "
    "= {factor:.2f}x: it sends the whole tensor in each step. Send one chunk (1/n of the tensor) per step":
        "en {n} ranks, cada rank envió de {least:.1f}x a {most:.1f}x el tensor ({size:,} bytes), y un anillo envía "
        "2(n-1)/n = {factor:.2f}x: envía el tensor entero en cada paso. Envíe un trozo (1/n del tensor) por paso",
    "on {n} ranks the ranks sent {sent} bytes for a {size:,}-byte tensor; a ring sends 2(n-1)/n of it per rank "
    "({ring:,.0f}), 2(n-1) tensors in all ({total:,})":
        "en {n} ranks, los ranks enviaron {sent} bytes para un tensor de {size:,} bytes; un anillo envía 2(n-1)/n "
        "del tensor por rank ({ring:,.0f}), y 2(n-1) tensores en total ({total:,})",
    "return (alpha, beta), got {got!r}": "devuelva (alpha, beta); devolvió {got!r}",
    "(alpha, beta) are swapped: alpha is seconds per call, beta seconds per byte moved":
        "(alpha, beta) están intercambiados: alpha son segundos por llamada, beta segundos por byte movido",
    "you fitted the mean of each size's repeats: one slow repeat pulls it up; take the median (statistics.median)":
        "ajustó la media de las repeticiones de cada tamaño: una repetición lenta la sube; tome la mediana "
        "(statistics.median)",
    "you fitted against the message size; the model's x is the bytes each rank moves, 2(n-1)/n x size (this sweep "
    "mixes {first} and {second} ranks)":
        "ajustó frente al tamaño del mensaje; la x del modelo son los bytes que mueve cada rank, 2(n-1)/n x "
        "tamaño (este barrido mezcla {first} y {second} ranks)",
    "that is plain least squares: the largest messages decide alone and alpha comes out wrong; divide each "
    "equation alpha + beta*moved = t by its t (relative errors)":
        "eso son mínimos cuadrados simples: los mensajes más grandes deciden solos y alpha sale mal; divida cada "
        "ecuación alpha + beta*moved = t entre su t (errores relativos)",
    "fit alpha and beta on (moved, median time) points, moved = 2(n-1)/n x bytes, by least squares on relative "
    "errors: minimise the sum of ((alpha + beta*moved) / t - 1)^2":
        "ajuste alpha y beta sobre puntos (moved, tiempo mediano), moved = 2(n-1)/n x bytes, por mínimos "
        "cuadrados sobre errores relativos: minimice la suma de ((alpha + beta*moved) / t - 1)^2",
    "expected alpha = {alpha:.4g} s, beta = {beta:.4g} s/byte, got alpha = {got_alpha:.4g}, beta = "
    "{got_beta:.4g}: {hint}":
        "se esperaba alpha = {alpha:.4g} s, beta = {beta:.4g} s/byte, pero llegó alpha = {got_alpha:.4g}, beta = "
        "{got_beta:.4g}: {hint}",
    "alpha and beta fitted right (first sweep: alpha = {alpha:.1f} µs, 1/beta = {bandwidth:.2f} GB/s bus "
    "bandwidth)":
        "alpha y beta bien ajustados (primer barrido: alpha = {alpha:.1f} µs, 1/beta = {bandwidth:.2f} GB/s de "
        "ancho de banda de bus)",
    "the bytes moved are 2(n-1)/n x the message, not the message itself":
        "los bytes movidos son 2(n-1)/n x el mensaje, no el propio mensaje",
    "alpha, the cost of every call, is missing": "falta alpha, el coste de cada llamada",
    "predicted time = alpha + beta x 2(n-1)/n x bytes": "tiempo predicho = alpha + beta x 2(n-1)/n x bytes",
    "{size:,} bytes on {world} ranks: expected {expected:.4g} ms, got {got:.4g} ms: {hint}":
        "{size:,} bytes en {world} ranks: se esperaban {expected:.4g} ms, pero llegaron {got:.4g} ms: {hint}",
    "predicted times are alpha + beta x 2(n-1)/n x bytes":
        "los tiempos predichos son alpha + beta x 2(n-1)/n x bytes",

    # ddp_lessons.runtime.signatures: the line RankFailedError adds, the README's table, docs/ERRORS.md
    "what it means: {meaning} (lesson {lesson})": "qué significa: {meaning} (lección {lesson})",
    "lesson {lesson}": "lección {lesson}",
    "| message in the error | what it means and what to change | shown in |":
        "| mensaje en el error | qué significa y qué cambiar | se ve en |",
    "# Error messages learners meet, explained": "# Los mensajes de error más frecuentes, explicados",
    "When a rank fails with one of these messages, `run_torchrun`'s `RankFailedError` adds one line saying what it "
    "means and what to change (the `what it means:` line below). The table lives in "
    "`ddp_lessons/runtime/signatures.py`; this page and the README's table are generated from it (`python -m "
    "ddp_lessons make-error-docs`). Each example is a real message, with where it was seen.":
        "Cuando un rank falla con uno de estos mensajes, el `RankFailedError` de `run_torchrun` añade una línea que "
        "dice qué significa y qué cambiar (la línea `qué significa:` de abajo). La tabla está en "
        "`ddp_lessons/runtime/signatures.py`; esta página y la tabla del README se generan a partir de ella "
        "(`python -m ddp_lessons make-error-docs`). Cada ejemplo es un mensaje real, con el lugar donde se vio.",
    "Seen: {source}.": "Visto: {source}.",
    "What it means: {meaning}. See {link}.": "Qué significa: {meaning}. Véase {link}.",
    "the script asks for the nccl backend, which needs a CUDA GPU per rank, and this torch or machine has none: use "
    "gloo here (`init_process_group()` without a backend picks it, or `backend.choose()`) and keep the tensors on "
    "the CPU":
        "el script pide el backend nccl, que necesita una GPU CUDA por rank, y este torch o esta máquina no la "
        "tienen: utilice gloo aquí (`init_process_group()` sin backend lo elige, o `backend.choose()`) y deje los "
        "tensores en la CPU",
    "the script puts the model or tensors on a GPU (`.to(local_rank)`, `.cuda()`, `torch.cuda.set_device`) and "
    "this machine has none: choose the device from what is there (`torch.device('cuda', local_rank) if "
    "torch.cuda.is_available() else torch.device('cpu')`, or `backend.choose().device`)":
        "el script pone el modelo o los tensores en una GPU (`.to(local_rank)`, `.cuda()`, "
        "`torch.cuda.set_device`) y esta máquina no tiene ninguna: elija el dispositivo según lo que haya "
        "(`torch.device('cuda', local_rank) if torch.cuda.is_available() else torch.device('cpu')`, o "
        "`backend.choose().device`)",
    "two ranks are on the same GPU, and nccl allows one rank per GPU: call `torch.cuda.set_device(local_rank)` "
    "(LOCAL_RANK, not RANK) before `init_process_group`, start at most one rank per GPU, or use gloo to let ranks "
    "share a GPU":
        "dos ranks están en la misma GPU, y nccl admite un rank por GPU: llame a "
        "`torch.cuda.set_device(local_rank)` (LOCAL_RANK, no RANK) antes de `init_process_group`, arranque como "
        "mucho un rank por GPU, o utilice gloo para que varios ranks compartan una GPU",
    "a collective got a CPU tensor, but the process group has only nccl, which works on GPU tensors: move the "
    "tensor to the rank's GPU (`.to(device)`), or give CPU tensors a gloo group (`dist.new_group(backend='gloo')`)":
        "una operación colectiva recibió un tensor de CPU, pero el grupo de procesos solo tiene nccl, que trabaja "
        "con tensores de GPU: mueva el tensor a la GPU del rank (`.to(device)`) o cree un grupo gloo para los "
        "tensores de CPU (`dist.new_group(backend='gloo')`)",
    "a fixed rendezvous port (MASTER_PORT, `--master_port`, `tcp://host:port` in the script) is already taken, "
    "often by an earlier run that is still alive: remove the fixed port and let torchrun choose one "
    "(`--standalone`, as `run_torchrun` does), or stop the old run":
        "un puerto de rendezvous fijo (MASTER_PORT, `--master_port`, `tcp://host:port` en el script) ya está "
        "ocupado, a menudo por una ejecución anterior que sigue viva: quite el puerto fijo y deje que torchrun "
        "elija uno (`--standalone`, como hace `run_torchrun`), o detenga la ejecución anterior",
    "some parameters got no gradient in the last step (a layer forward never uses, or a branch taken only "
    "sometimes), so DDP's all-reduce never finished: use them in the loss or remove them, or pass "
    "`find_unused_parameters=True` to DDP; `TORCH_DISTRIBUTED_DEBUG=INFO` names them":
        "algunos parámetros no recibieron gradiente en el último paso (una capa que forward nunca usa, o una rama "
        "que solo se toma a veces), así que el all-reduce de DDP nunca terminó: úselos en la pérdida o quítelos, "
        "o pase `find_unused_parameters=True` a DDP; `TORCH_DISTRIBUTED_DEBUG=INFO` dice sus nombres",
    "a collective lost a peer: one rank ended first (it crashed, was killed, or left the training "
    "loop early), so look at the rank named first; every rank must run the same collectives, so a rank-local "
    "`break` or early stop must be agreed by all ranks (all-reduce the stop flag)":
        "una operación colectiva perdió a un par: un rank terminó antes (falló, lo mataron o salió "
        "antes del bucle de entrenamiento), así que mire el rank que se nombra primero; todos los ranks deben "
        "ejecutar las mismas operaciones colectivas, así que un `break` o una parada temprana local de un rank "
        "deben acordarla todos los ranks (haga all-reduce de la señal de parada)",
    "this rank's GPU is full: check that each rank uses its own GPU (`torch.cuda.set_device(local_rank)`, not every "
    "rank on cuda:0), then lower the batch size per rank, or use mixed precision or sharding (FSDP)":
        "la GPU de este rank está llena: compruebe que cada rank usa su propia GPU "
        "(`torch.cuda.set_device(local_rank)`, no todos los ranks en cuda:0); después reduzca el tamaño de lote "
        "por rank, o utilice precisión mixta o fragmentación (FSDP)",
    "CUDA was used in the parent before this process was forked (`notebook_launcher` forks the kernel; "
    "`multiprocessing` with fork; DataLoader workers after a CUDA call): restart the kernel and touch no GPU before "
    "`notebook_launcher`, or start ranks with torchrun or `mp.spawn`, and give DataLoader workers "
    "`multiprocessing_context='spawn'`":
        "se usó CUDA en el proceso padre antes de crear este proceso con fork (`notebook_launcher` hace fork del "
        "kernel; `multiprocessing` con fork; workers de DataLoader tras una llamada a CUDA): reinicie el kernel y no "
        "toque ninguna GPU antes de `notebook_launcher`, o arranque los ranks con torchrun o `mp.spawn`, y dé a los "
        "workers de DataLoader `multiprocessing_context='spawn'`",

    # ddp_lessons.report_card, plots.report_card, tooling.learner_progress: what the learner's record says
    "lesson": "lección",
    "quick checks": "comprobaciones rápidas",
    "quick checks answered": "comprobaciones rápidas respondidas",
    "right the first time": "acertadas a la primera",
    "exercise checks passed": "comprobaciones del ejercicio superadas",
    "Quick checks per lesson": "Comprobaciones rápidas por lección",
    "% right": "% de aciertos",
    "How sure you were": "Cuán seguro estaba",
    "predicted / measured": "predicho / medido",
    "Numeric predictions": "Predicciones numéricas",
    "asked": "planteadas",
    "answered": "respondidas",
    "none revealed yet": "aún no se ha revelado ninguna",
    "off by {ratio:.3g}×": "error de {ratio:.3g}×",
    "off by {difference}": "error de {difference}",
    "exactly right": "exacta",
    "Your progress ({record}: {events} records)": "Su progreso ({record}: {events} registros)",
    "{level}: right {right} of {answered}": "{level}: acertó {right} de {answered}",
    "How sure you were, and how often you were right: {said}.":
        "Cuán seguro estaba, y cuántas veces acertó: {said}.",
    "Numeric predictions:": "Predicciones numéricas:",
    "{lesson}-{question}: you predicted {predicted}, measured {measured} ({off})":
        "{lesson}-{question}: usted predijo {predicted}; se midió {measured} ({off})",
    "To revisit:": "Para repasar:",
    "Not started yet: {lessons}": "Aún sin empezar: {lessons}",
    "(you were sure)": "(estaba seguro)",
    "Nothing to revisit: every first answer was right.":
        "Nada que repasar: todas sus primeras respuestas fueron correctas.",
    "No answers recorded yet.": "Todavía no hay respuestas registradas.",
    "Nothing is recorded in this kernel (nbval, make course, a test): nothing was read or written.":
        "En este kernel no se registra nada (nbval, make course, una prueba): no se leyó ni se escribió nada.",
    "Answer the quick checks of the lessons in JupyterLab: this then shows which you got right the first time, "
    "how sure you were, and what to revisit.":
        "Responda las comprobaciones rápidas de las lecciones en JupyterLab: aquí verá cuáles acertó a la primera, "
        "cuán seguro estaba y qué le conviene repasar.",
    "Skipped {count} unreadable line(s) of the record (line {numbers}); every other line was read, and the file "
    "was left as it is.":
        "Se omitieron {count} línea(s) ilegibles del registro (línea {numbers}); se leyeron todas las demás y el "
        "archivo quedó como estaba.",
    "your progress": "su progreso",
    "Start a new record? The current one ({path}, {events} records) will be kept aside, renamed with today's "
    "date. [y/N] ":
        "¿Empezar un registro nuevo? El actual ({path}, {events} registros) se guardará aparte, renombrado con la "
        "fecha de hoy. [s/N] ",
    "A new record starts with your next answer; the old one is kept as {backup}.":
        "Con su próxima respuesta empieza un registro nuevo; el anterior se guarda como {backup}.",
    "The record is turned off here (DDP_LESSONS_JOURNAL=off): nothing to read.":
        "Aquí el registro está desactivado (DDP_LESSONS_JOURNAL=off): no hay nada que leer.",
    "There is no record at {path} yet: nothing to reset.":
        "Todavía no hay ningún registro en {path}: no hay nada que reiniciar.",
    "No figure: the record is empty.": "Sin figura: el registro está vacío.",
    "Not reset.": "No se reinició.",
    "Figure saved to {path}": "Figura guardada en {path}",
    "Not reset: nobody answered (add --yes to reset without being asked).":
        "No se reinició: nadie respondió (añada --yes para reiniciar sin preguntar).",

    # ddp_lessons.tooling.site: the course's web site (make site)
    "DDP course": "Curso de DDP",
    "This page in another language": "Esta página en otro idioma",
    "Lessons": "Lecciones",
    "Exercises": "Ejercicios",
    "Guides": "Guías",
    "Take-home files": "Archivos de referencia",
    "README: setup, commands, troubleshooting": "README: instalación, comandos, problemas frecuentes",
    "This page is not translated yet: here it is in English.": "Esta página aún no está traducida: aquí está en inglés.",
    "This page exists only in Spanish.": "Esta página solo existe en español.",
    "A file of the course to take home: the lessons run it, and so can you, from the course's folder.":
        "Un archivo de referencia del curso: las lecciones lo ejecutan, y usted también puede hacerlo, desde la "
        "carpeta del curso.",
    "Used in: {lessons}.": "Se usa en: {lessons}.",
    "Run it yourself": "Ejecútela usted",
    "This page shows the lesson as it ran: its outputs are stored, and nothing runs here. On your machine: "
    "`{command}`, then open `{path}` and run its cells (the [setup]({setup}) is two commands).":
        "Esta página muestra la lección tal como se ejecutó: sus salidas están guardadas y aquí no se ejecuta nada. "
        "En su máquina: `{command}`, abra `{path}` y ejecute sus celdas (la [instalación]({setup}) son dos "
        "comandos).",
    "You do this exercise on your machine": "Este ejercicio se hace en su máquina",
    "Run `{command}`, open `{path}`, write your code where a cell says `# YOUR CODE HERE`, then run the check cell "
    "below it: it says what is wrong, and how to fix it if it fails again. The solutions are not published. First "
    "time? The [setup]({setup}) is two commands.":
        "Ejecute `{command}`, abra `{path}`, escriba su código donde una celda dice `# YOUR CODE HERE` y ejecute la "
        "celda de comprobación que tiene debajo: dice qué está mal, y cómo arreglarlo si vuelve a fallar. Las "
        "soluciones no se publican. ¿Es la primera vez? La [instalación]({setup}) son dos comandos.",
    "Not translated yet": "Aún sin traducir",
    "Only in Spanish": "Solo en español",

    # ddp_lessons.plots.coverage, ddp_lessons.sampling.epoch_note and ddp_lessons.explorer (lesson 5)
    "dataset index": "índice en el conjunto de datos",
    "epoch": "época",
    "{world} ranks, {size} samples": "{world} ranks, {size} muestras",
    "WRONG mental model: rank r takes the r-th contiguous block":
        "Modelo mental ERRÓNEO: el rank r toma el r-ésimo bloque contiguo",
    "DistributedSampler (shuffle=False): rank r takes positions r, r+W, r+2W, ...":
        "DistributedSampler (shuffle=False): el rank r toma las posiciones r, r+W, r+2W, ...",
    "expected one list of per-rank shards per epoch, e.g. [sampling.all_shards(size, world, epoch=e) for e in "
    "range(3)]; for a single epoch pass [sampling.all_shards(...)]":
        "se esperaba una lista de fragmentos por rank para cada época, p. ej. `[sampling.all_shards(size, world, "
        "epoch=e) for e in range(3)]`; para una sola época pase `[sampling.all_shards(...)]`",
    "epoch {epoch} ({note})": "época {epoch} ({note})",
    "epoch {epoch}": "época {epoch}",
    "rank {rank}": "rank {rank}",
    "visited twice (padding)": "visitado dos veces (relleno)",
    "the padding's repeat": "la repetición del relleno",
    "never visited (drop_last)": "nunca visitado (drop_last)",
    "number = the rank's step": "número = el paso del rank",
    "+{count} repeated": "+{count} repetidos",
    "-{count} dropped": "-{count} descartados",
    "dataset size": "tamaño del conjunto de datos",
    "epochs": "épocas",
    "call sampler.set_epoch(epoch)": "llamar a sampler.set_epoch(epoch)",
    "every index exactly once": "cada índice exactamente una vez",
    "same order every epoch (set_epoch not called)": "el mismo orden en cada época (no se llama a set_epoch)",
    "new order every epoch": "un orden nuevo en cada época",
    "no shuffle: same order every epoch": "sin barajado: el mismo orden en cada época",
    "{world} rank(s) x {per_rank} samples = {visits} visits of {size} samples per epoch: {note}; {order}":
        "{world} rank(s) x {per_rank} muestras = {visits} visitas de {size} muestras por época: {note}; {order}",
    "size={size}, world={world}, shuffle={shuffle}, drop_last={drop_last}, set_epoch {called}":
        "size={size}, world={world}, shuffle={shuffle}, drop_last={drop_last}, set_epoch {called}",
    "on": "sí",
    "off": "no",

    # ddp_lessons.plots.diagrams (lessons 1-3)
    "draw between 2 and 8 GPUs, got {world_size}": "dibuje entre 2 y 8 GPU, no {world_size}",
    "need nodes >= 1, ranks_per_node >= 1 and gpus_per_node >= 0":
        "se necesita nodes >= 1, ranks_per_node >= 1 y gpus_per_node >= 0",
    "node {node}\nGROUP_RANK={node}": "nodo {node}\nGROUP_RANK={node}",
    "cuda:(local_rank % {gpus}), shared (gloo)": "cuda:(local_rank % {gpus}), compartida (gloo)",
    "{nodes} node(s) x {ranks} ranks, {gpus} GPU(s) per node\nrank = node x {ranks} + local_rank;  device = {rule}":
        "{nodes} nodo(s) x {ranks} ranks, {gpus} GPU por nodo\nrank = nodo x {ranks} + local_rank;  "
        "dispositivo = {rule}",
    "DataParallel: GPU 0": "DataParallel: GPU 0",
    "DDP: each rank": "DDP: cada rank",
    "number of GPUs": "número de GPU",
    "MB sent + received per step": "MB enviados + recibidos por paso",
    "Traffic per training step: DataParallel's GPU 0 vs one DDP rank":
        "Tráfico por paso de entrenamiento: la GPU 0 de DataParallel frente a un rank de DDP",
    "one Python process, one thread per GPU": "un proceso de Python, un hilo por GPU",
    "GPU 0\nwhole batch, outputs,\nloss, optimizer.step()": "GPU 0\nlote entero,\nsalidas, pérdida,\noptimizer.step()",
    "GPU {gpu}\nreplica": "GPU {gpu}\nréplica",
    "GPU 0 sends: inputs, weights, output grads": "la GPU 0 envía: entradas, pesos, gradientes de las salidas",
    "GPU 0 receives: outputs, gradients": "la GPU 0 recibe: salidas, gradientes",
    "DataParallel: every step passes through GPU 0": "DataParallel: cada paso pasa por la GPU 0",
    "process {rank}\nGPU {rank}\nown data shard": "proceso {rank}\nGPU {rank}\nsu fragmento de datos",
    "ring all-reduce\nof gradients,\nduring backward()": "all-reduce en anillo\nde los gradientes,\ndurante backward()",
    "weights are broadcast once, in DDP(model); afterwards only gradients move":
        "los pesos se envían por broadcast una vez, en DDP(model); después solo se mueven gradientes",
    "DDP: one process per GPU, only gradients move": "DDP: un proceso por GPU, solo se mueven gradientes",

    # ddp_lessons.plots.collectives (lesson 2's playground)
    "give at least one panel with one row per rank": "dé al menos un panel con una fila por rank",
    "give one arrival and one departure time per rank": "dé un instante de llegada y uno de salida por rank",
    "last rank arrives": "llega el último rank",
    "seconds after the first rank arrived (dot: arrival, bar: waiting in the barrier)":
        "segundos desde que llegó el primer rank (punto: llegada; barra: espera en la barrera)",
    "dist.barrier(): every rank leaves after the last one arrives":
        "dist.barrier(): cada rank sale cuando ha llegado el último",
    # ddp_lessons.plots.gradients (lesson 4)
    "{mean} ranks' mean-loss gradients but {summed} sum-loss ones":
        "gradientes de la pérdida media de {mean} ranks, pero de la pérdida sumada de {summed}",
    "loss = mean over the batch": "pérdida = media sobre el lote",
    "loss = sum over the batch": "pérdida = suma sobre el lote",
    "Gradient after backward(): {world} DDP ranks vs one process on the whole batch":
        "Gradiente después de backward(): {world} ranks de DDP frente a un proceso con el lote entero",
    "rank {rank} has {got} gradient entries, expected {expected}":
        "el rank {rank} tiene {got} componentes de gradiente; se esperaban {expected}",
    "DDP rank {rank}": "rank {rank} de DDP",
    "one process, whole batch: gradient entry": "un proceso, lote entero: componente del gradiente",
    "DDP rank after backward(): gradient entry": "rank de DDP después de backward(): componente del gradiente",
    # ddp_lessons.plots.grading (the class report, docs/INSTRUCTORS.md)
    "a student": "un estudiante",
    "median": "mediana",
    "score (% of the exercise's points)": "nota (% de los puntos del ejercicio)",
    "Score distribution per exercise": "Distribución de notas por ejercicio",
    "students passing the check (%); red: under {share:.0f} %":
        "estudiantes que superan la comprobación (%); en rojo: por debajo del {share:.0f} %",
    "Pass rate of every check": "Porcentaje de aprobados de cada comprobación",
    "Class report": "Informe de la clase",
    # ddp_lessons.plots.precision (lesson 13)
    "run {name!r} recorded no step times": "la ejecución {name!r} no registró tiempos de paso",
    "no runs to plot": "no hay ejecuciones que dibujar",
    "step": "paso",
    "loss (mean over ranks)": "pérdida (media sobre los ranks)",
    "loss curves": "curvas de pérdida",
    "loss - loss of {name}": "pérdida - pérdida de {name}",
    "difference from the first": "diferencia con la primera",
    "ms per step (median)": "ms por paso (mediana)",
    "step time on this machine": "tiempo por paso en esta máquina",
    "MiB per step": "MiB por paso",
    "handed to all_reduce": "entregados a all_reduce",
    "Same model, same data: precision settings compared":
        "Mismo modelo, mismos datos: ajustes de precisión comparados",
    # ddp_lessons.plots.training (lessons 7 and 8)
    "single process": "un solo proceso",
    "Training loss of each rank's shard": "Pérdida de entrenamiento del fragmento de cada rank",
    "both runs need a record from the same ranks, in the same order":
        "las dos ejecuciones necesitan un registro de los mismos ranks, en el mismo orden",
    "rank {rank}, run 1": "rank {rank}, ejecución 1",
    "rank {rank}, run 2 (resumed)": "rank {rank}, ejecución 2 (reanudada)",
    "checkpoint loaded (epoch {epoch})": "checkpoint cargado (época {epoch})",
    "Training resumed from a checkpoint": "Entrenamiento reanudado desde un checkpoint",
    "mean loss of the epoch (log scale)": "pérdida media de la época (escala logarítmica)",

    # ddp_lessons.plots.measure (lesson 11)
    "single process: {accuracy:.1f} %": "un solo proceso: {accuracy:.1f} %",
    "accuracy (%)": "exactitud (%)",
    "Validation accuracy, counted four ways": "Exactitud de validación, contada de cuatro maneras",
    "rank {rank}'s own batch (what rank 0 prints)": "el lote propio del rank {rank} (lo que imprime el rank 0)",
    "rank {rank}'s own batch": "el lote propio del rank {rank}",
    "all-reduced mean (every step)": "media tras el all-reduce (en cada paso)",
    "mean of the last {k} steps (1 all-reduce per {k})": "media de los últimos {k} pasos (1 all-reduce cada {k})",
    "training loss": "pérdida de entrenamiento",
    "What gets logged: rank 0's loss vs the global mean": "Qué se registra: la pérdida del rank 0 frente a la media global",
    "optimizer steps": "pasos del optimizador",
    "held-out loss (log scale)": "pérdida en datos reservados (escala logarítmica)",
    "samples seen (steps x global batch)": "muestras vistas (pasos x lote global)",
    "Held-out loss of each setup": "Pérdida en datos reservados de cada configuración",
    # ddp_lessons.plots.timeline (lesson 6)
    "backward compute": "cálculo de backward()",
    "bucket {index} all-reduce": "all-reduce del bucket {index}",
    "loss.backward() returns": "loss.backward() termina",
    "optimizer.step(): no communication": "optimizer.step(): sin comunicación",
    "ms since loss.backward() was called ({clock})": "ms desde la llamada a loss.backward() ({clock})",
    "ms since loss.backward() was called": "ms desde la llamada a loss.backward()",
    "host clock": "reloj del host",
    "CUDA events, device time": "eventos CUDA, tiempo del dispositivo",
    "{count} bucket(s)": "{count} bucket(s)",
    "a layer's backward (number = layer)": "backward() de una capa (número = capa)",
    "all-reduce queued: launched, waiting for a free gloo worker":
        "all-reduce en cola: lanzado, esperando un hilo de gloo libre",
    "all-reduce running": "all-reduce en curso",
    "all-reduce, launch (tick) to completion": "all-reduce, del lanzamiento (marca) a su fin",
    "DDP launches the bucket": "DDP lanza el bucket",

    # ddp_lessons.plots.scaling (lesson 9)
    "ideal (linear)": "ideal (lineal)",
    "speedup over 1 rank (log2)": "aceleración respecto a 1 rank (log2)",
    "Speedup: samples/s at n ranks ÷ samples/s at 1 rank":
        "Aceleración (speedup): muestras/s con n ranks ÷ muestras/s con 1 rank",
    "ideal (100 %)": "ideal (100 %)",
    "efficiency (speedup ÷ ranks)": "eficiencia (aceleración ÷ ranks)",
    "Scaling efficiency": "Eficiencia del escalado",
    "compute: step inside no_sync ({label})": "cálculo: paso dentro de no_sync ({label})",
    "DDP overhead at 1 rank, nothing sent": "sobrecarga de DDP con 1 rank, sin enviar nada",
    "exposed communication + DDP overhead": "comunicación expuesta + sobrecarga de DDP",
    "{what}: sync − no_sync ({label})": "{what}: sync − no_sync ({label})",
    "all-reduce in flight, comm hook ({label})": "all-reduce en curso, comm hook ({label})",
    "{count} ranks": "{count} ranks",
    "1 rank": "1 rank",
    "world size (threads per rank below it)": "world size (debajo, los hilos por rank)",
    "milliseconds per step (median)": "milisegundos por paso (mediana)",
    "Where a step's time goes: {experiment}": "En qué se va el tiempo de un paso: {experiment}",
    "  {ms:.3g} ms, {count:g} all-reduce(s)": "  {ms:.3g} ms, {count:g} all-reduce",
    "milliseconds per optimizer step (median; whiskers: quartiles)":
        "milisegundos por paso del optimizador (mediana; bigotes: cuartiles)",
    "{title} ({world} ranks, {label})": "{title} ({world} ranks, {label})",
    "Step time": "Tiempo por paso",
    "{label}: no measured step times for {experiment!r} with both sync='every' and sync='never'":
        "{label}: no hay tiempos de paso medidos para {experiment!r} con sync='every' y con sync='never'",
    "no row for {experiment!r}, sync={sync!r}, world size {world}":
        "no hay ninguna fila para {experiment!r}, sync={sync!r}, world size {world}",
    "world size (ranks, log2 axis)": "world size (ranks, eje log2)",
    "threads unknown": "hilos desconocidos",
    "1 thread": "1 hilo",
    "{count} threads": "{count} hilos",

    # ddp_lessons.plots.comm (lesson 16)
    "every rank needs the same number of steps": "todos los ranks necesitan el mismo número de pasos",
    "all": "todos",
    "start": "inicio",
    "Ring all-reduce, from the ranks' tensors: whose data each chunk holds (orange edge: the chunk sent to rank + "
    "1 in that step)":
        "All-reduce en anillo, a partir de los tensores de los ranks: de quién son los datos de cada trozo (borde "
        "naranja: el trozo enviado al rank + 1 en ese paso)",
    "measured, {n} ranks": "medido, {n} ranks",
    "fit, {n} ranks": "ajuste, {n} ranks",
    "β from ≥ {mib:g} MiB, {n} ranks": "β desde ≥ {mib:g} MiB, {n} ranks",
    "1/β = {gbs:.2f} GB/s (all sizes)": "1/β = {gbs:.2f} GB/s (todos los tamaños)",
    "1/β = {gbs:.2f} GB/s (≥ {mib:g} MiB)": "1/β = {gbs:.2f} GB/s (≥ {mib:g} MiB)",
    "α = {alpha:.3f} ms\n1/β = {gbs:.2f} GB/s\ndotted: knee (α = β·moved)":
        "α = {alpha:.3f} ms\n1/β = {gbs:.2f} GB/s\npunteado: codo (α = β·movido)",
    "message size (bytes, log2 axis)": "tamaño del mensaje (bytes, eje log2)",
    "all-reduce time (ms, log axis)": "tiempo del all-reduce (ms, eje logarítmico)",
    "time ≈ α + β · 2(n−1)/n · size": "tiempo ≈ α + β · 2(n−1)/n · tamaño",
    "bus bandwidth (GB/s)": "ancho de banda de bus (GB/s)",
    "busbw = size / time · 2(n−1)/n (nccl-tests)": "busbw = tamaño / tiempo · 2(n−1)/n (nccl-tests)",
    "{name}: {hidden:.1f} ms hidden behind backward, {exposed:.1f} ms exposed":
        "{name}: {hidden:.1f} ms ocultos tras backward(), {exposed:.1f} ms expuestos",
    "ms after backward starts (one colour per bucket; |: its gradients ready; dashed: backward ends)":
        "ms desde que empieza backward() (un color por bucket; |: sus gradientes están listos; discontinua: "
        "termina backward())",
    "{model}, bucket_cap_mb {cap}": "{model}, bucket_cap_mb {cap}",
    "default": "por defecto",
    "backward": "backward()",
    "ms per step": "ms por paso",
    "compute (no communication)": "cálculo (sin comunicación)",
    "exposed communication": "comunicación expuesta",
    "rank {rank} (slow)": "rank {rank} (lento)",
    "ms per step (median): colour = the rank's own work, grey = waiting in the all-reduce":
        "ms por paso (mediana): color = el trabajo propio del rank; gris = espera en el all-reduce",
    "Every rank's step takes as long as the slowest rank's": "El paso de cada rank dura lo que el del rank más lento",

    # ddp_lessons.runtime.diagnose: RankFailedError and RunTimeoutError (the launcher's failures, lessons 7 and 10)
    "often the out-of-memory killer; check dmesg / memory per rank":
        "a menudo, el OOM killer del sistema (memoria agotada); mire dmesg y la memoria por rank",
    "a crash in native code (C++/CUDA, an extension, or torch itself), not a Python error":
        "un fallo en código nativo (C++/CUDA, una extensión o el propio torch), no un error de Python",
    "native code called abort() (a failed C++ check, 'terminate called ...')":
        "el código nativo llamó a abort() (una comprobación de C++ fallida, 'terminate called ...')",
    "a bad memory access, often a full /dev/shm (shared memory for DataLoader workers)":
        "un acceso a memoria inválido, a menudo porque /dev/shm está lleno (la memoria compartida de los workers "
        "de DataLoader)",
    "an arithmetic fault in native code": "un error aritmético en código nativo",
    "an illegal CPU instruction in native code (a binary built for another CPU)":
        "una instrucción de CPU ilegal en código nativo (un binario compilado para otra CPU)",
    "asked to stop (by torchrun, a scheduler or a person)":
        "se le pidió que parase (torchrun, un gestor de colas o una persona)",
    "interrupted (Ctrl-C)": "interrumpido (Ctrl-C)",
    " after rank {root} failed": " después de que fallara el rank {root}",
    " - a consequence of rank {root} leaving early": " - consecuencia de que el rank {root} saliera antes de tiempo",
    " - a consequence of rank {root}'s failure": " - consecuencia del fallo del rank {root}",
    "exited (code 0){when} while rank {peer} was still {waiting}: a rank left the training loop early":
        "terminó (código 0){when} mientras el rank {peer} seguía {waiting}: un rank salió antes de tiempo del "
        "bucle de entrenamiento",
    "in the training loop": "en el bucle de entrenamiento",
    "{seconds:.1f} s after the job started": "{seconds:.1f} s después de empezar el trabajo",
    "at {file}:{line}": "en {file}:{line}",
    "in {call}() {place}": "dentro de {call}() {place}",
    "failed: {error}": "falló: {error}",
    "was killed by {name} (signal {number})": "murió por {name} (señal {number})",
    "exited with code {code} without a Python traceback": "terminó con el código {code} sin traceback de Python",
    "lost its connection to a peer ({error}: ... {words} ...)": "perdió la conexión con otro rank ({error}: ... {words} ...)",
    "was stopped by torchrun ({signal})": "fue detenido por torchrun ({signal})",
    "failed with exit code {code}": "falló con el código de salida {code}",
    "failed (no exit code, no error recorded)": "falló (sin código de salida ni error registrado)",
    "signal {number}": "señal {number}",
    "torchrun exited with code {code} before any rank reported an error:":
        "torchrun terminó con el código {code} antes de que ningún rank informara de un error:",
    "rank {rank} {cause}": "el rank {rank} {cause}",
    "every failed rank, root cause first:": "todos los ranks que fallaron, la causa raíz primero:",
    "  rank {rank}: {cause}": "  rank {rank}: {cause}",
    "    (nothing)": "    (nada)",
    "the end of rank {rank}'s output:": "el final de la salida del rank {rank}:",
    "(all output: result.rank_lines; run directory: {run_dir})":
        "(toda la salida: result.rank_lines; carpeta de la ejecución: {run_dir})",
    "after raising {error}": "tras lanzar {error}",
    "its Python ended without an error": "su Python terminó sin error",
    "had already exited{when} ({how})": "ya había terminado{when} ({how})",
    "the job did not finish within {timeout:g} s and was killed (all {count} processes). A run that stops making "
    "progress is usually a hang: one rank waits in a collective (all_reduce, barrier, DDP's backward) that another "
    "rank never reaches. Rerun with env={{'TORCH_DISTRIBUTED_DEBUG': 'DETAIL'}} to see which collective.":
        "el trabajo no terminó dentro del tiempo límite (timeout) de {timeout:g} s y se detuvo (sus {count} "
        "procesos). Una ejecución que deja de avanzar suele ser un bloqueo: un rank espera en una operación "
        "colectiva (all_reduce, barrier, el backward de DDP) a la que otro rank no llega nunca. Vuelva a "
        "ejecutarla con env={{'TORCH_DISTRIBUTED_DEBUG': 'DETAIL'}} para ver cuál.",
    "{ranks} had already exited while the others waited: a rank that leaves early (a rank-local return, break or "
    "early stop) leaves its peers waiting for it in a collective.":
        "salida anticipada mientras los demás esperaban: {ranks}. Un rank que sale antes de tiempo (un return, un "
        "break o una parada temprana solo en ese rank) deja a los demás esperándolo en una operación colectiva.",
    "last output of rank {rank}:": "última salida del rank {rank}:",
    "where each rank was (Python stacks taken with {tool}; full stacks: err.result.stacks[rank]):":
        "dónde estaba cada rank (pilas de Python tomadas con {tool}; pilas completas: err.result.stacks[rank]):",
    "no stack (no live process of this rank)": "sin pila (no queda ningún proceso vivo de este rank)",
    # ddp_lessons.runtime.hang_report: where each rank of a hung job or cell was
    "no Python stacks could be captured: {why}": "no se pudo tomar ninguna pila de Python: {why}",
    "unknown reason": "motivo desconocido",
    "stack capture failed: {error!r}": "falló la captura de las pilas: {error!r}",

    # ddp_lessons.backend: what each rank prints about its backend, device and threads (every lesson)
    "{backend} on {device}, {threads} thread(s): {reason}": "{backend} en {device}, {threads} hilo(s): {reason}",
    "{variable}={forced!r}: choose one of {choices}": "{variable}={forced!r}: elija uno de {choices}",
    "nccl needs one GPU per local rank: {ranks} ranks, {gpus} GPU(s); use gloo to share GPUs or the CPU":
        "nccl necesita una GPU por rank local: {ranks} ranks, {gpus} GPU; utilice gloo para compartir GPU o la CPU",
    "no GPU on this machine: gloo on CPU": "no hay GPU en esta máquina: gloo en la CPU",
    "gloo asked for explicitly": "gloo pedido explícitamente",
    "each of {ranks} local rank(s) has its own GPU ({gpus} visible)":
        "cada uno de los {ranks} rank(s) locales tiene su propia GPU ({gpus} visibles)",
    "{ranks} ranks share {gpus} GPU(s): nccl allows one rank per GPU":
        "{ranks} ranks comparten {gpus} GPU: nccl admite un rank por GPU",
    # ddp_lessons.launch: why a run cannot start as asked
    "nproc must be a whole number >= 1 (one process per rank), got {nproc!r}":
        "nproc debe ser un número entero >= 1 (un proceso por rank), no {nproc!r}",
    "nnodes must be a whole number >= 1, got {nnodes!r}": "nnodes debe ser un número entero >= 1, no {nnodes!r}",
    "training script not found: {script} (write it first, e.g. with %%writefile, relative to {folder})":
        "no se encuentra el script de entrenamiento: {script} (escríbalo antes, p. ej. con %%writefile, con la ruta "
        "relativa a {folder})",
    "{script} still raises NotImplementedError where it says `# YOUR CODE HERE`: write your code there and run its "
    "%%writefile cell again (nothing was launched: every rank would stop there)":
        "{script} todavía lanza NotImplementedError donde dice `# YOUR CODE HERE`: escriba ahí su código y vuelva a "
        "ejecutar su celda %%writefile (no se lanzó nada: todos los ranks se detendrían ahí)",
    "unknown backend {backend!r}; choose one of {choices}": "backend desconocido {backend!r}; elija uno de {choices}",
    "backend 'nccl' needs CUDA GPUs and this machine has none; use backend='gloo' (or leave backend unset to choose "
    "automatically)":
        "el backend 'nccl' necesita GPU CUDA y esta máquina no tiene ninguna; utilice backend='gloo' (o no indique "
        "el backend para que se elija automáticamente)",
    "backend 'nccl' needs one GPU per rank: {ranks} ranks but {gpus} GPU(s). NCCL refuses two ranks on one GPU "
    "('Duplicate GPU detected'); use backend='gloo' to let several ranks share a GPU, or lower nproc":
        "el backend 'nccl' necesita una GPU por rank: {ranks} ranks, pero {gpus} GPU. NCCL rechaza dos ranks en "
        "una misma GPU ('Duplicate GPU detected'); utilice backend='gloo' para que varios ranks compartan una GPU, "
        "o reduzca nproc",
    "{gpus} GPU(s) cannot be split over {nodes} simulated nodes, so no node sees one: gloo on CPU":
        "{gpus} GPU no se pueden repartir entre {nodes} nodos simulados, así que ningún nodo ve ninguna: gloo en la "
        "CPU",
    # ddp_lessons.runtime.stacks: where a hung rank waits, and why a stack could not be taken
    " (called from {file}:{line})": " (llamado desde {file}:{line})",
    "not in {file}": "fuera de {file}",
    "no Python stack in the dump": "no hay ninguna pila de Python en el volcado",
    "no Python frames (the thread runs native code only)": "no hay marcos de Python (el hilo solo ejecuta código nativo)",
    "no live rank process was found": "no se encontró ningún proceso vivo de los ranks",
    "py-spy not tried: {variable}={tool}": "no se probó py-spy: {variable}={tool}",
    "py-spy is not installed": "py-spy no está instalado",
    "py-spy could not read the ranks: {why}": "py-spy no pudo leer los ranks: {why}",
    "py-spy took longer than {timeout:.1f} s": "py-spy tardó más de {timeout:.1f} s",
    "py-spy could not start ({error})": "py-spy no pudo arrancar ({error})",
    "py-spy exited with code {code}": "py-spy terminó con el código {code}",
    "the faulthandler fallback needs SIGUSR1, which this system lacks":
        "la alternativa con faulthandler necesita SIGUSR1, que este sistema no tiene",
    "faulthandler got no stack from rank(s) {ranks}": "faulthandler no obtuvo ninguna pila del rank o los ranks {ranks}",
    # ddp_lessons.live: live ranks (%ranks, %%ranks, %ranks_gather; lessons 0 and 2, docs/LIVE.md)
    "where each rank was waiting (Python stacks taken with {tool}; full stacks: `%ranks stacks` or "
    "err.result.stacks[rank]):":
        "dónde esperaba cada rank (pilas de Python tomadas con {tool}; pilas completas: `%ranks stacks` o "
        "err.result.stacks[rank]):",
    "finished": "terminó",
    "raised": "lanzó una excepción",
    "interrupted": "interrumpido",
    "still running: did not stop when interrupted (stuck in native code, e.g. waiting in a collective for a rank "
    "that never called it)":
        "sigue en marcha: no se detuvo al interrumpirlo (atascado en código nativo, p. ej. esperando en una "
        "operación colectiva a un rank que nunca la llamó)",
    "its process ended during the cell (it crashed or was killed, or torchrun stopped it because another rank's "
    "process ended)":
        "su proceso terminó durante la celda (falló o lo mataron, o torchrun lo detuvo porque terminó el proceso "
        "de otro rank)",
    "the cell ran past its timeout ({timeout:g} s) and was interrupted on every rank":
        "la celda superó su tiempo límite (timeout) de {timeout:g} s y se interrumpió en todos los ranks",
    "the cell was interrupted (KeyboardInterrupt) on every rank":
        "la celda se interrumpió (KeyboardInterrupt) en todos los ranks",
    "rank {rank} raised {error}": "el rank {rank} lanzó {error}",
    "rank {rank}'s process ended": "terminó el proceso del rank {rank}",
    "the cell failed": "la celda falló",
    "the group was stopped because a rank could not be stopped any other way; `%ranks restart` starts a fresh one "
    "(every rank's variables are gone)":
        "se detuvo el grupo porque un rank no se podía detener de otra manera; `%ranks restart` arranca uno nuevo "
        "(las variables de todos los ranks se han perdido)",
    "the group is still usable (each rank keeps its variables)":
        "el grupo se puede seguir usando (cada rank conserva sus variables)",
    "no live ranks yet: run `%ranks start 2` first": "todavía no hay ranks en vivo: ejecute antes `%ranks start 2`",
    "ranks are written 0 or 0,1 or 0-3 (or all), not {text!r}":
        "los ranks se escriben 0, 0,1 o 0-3 (o all), no {text!r}",
    "live ranks stopped": "ranks en vivo detenidos",
    "no live ranks to stop": "no hay ranks en vivo que detener",
    "usage: %ranks start N | status | stacks | restart | stop, or %%ranks [RANKS] as a cell":
        "uso: %ranks start N | status | stacks | restart | stop, o %%ranks [RANKS] como celda",
    "live ranks are already running: `%ranks restart` for a fresh group, or `%ranks stop` first":
        "los ranks en vivo ya están en marcha: `%ranks restart` para un grupo nuevo, o antes `%ranks stop`",
    "{count} ranks joined the process group in {seconds:.1f} s":
        "{count} ranks se unieron al grupo de procesos en {seconds:.1f} s",
    "give the ranks once: `%%ranks 0,1` or `%%ranks --ranks 0,1`":
        "indique los ranks una sola vez: `%%ranks 0,1` o `%%ranks --ranks 0,1`",
    "usage: %ranks_gather [--ranks 0,1] EXPRESSION": "uso: %ranks_gather [--ranks 0,1] EXPRESIÓN",
    "no stacks: they are taken when a cell runs past its timeout (or a rank will not stop)":
        "no hay pilas: se toman cuando una celda supera su tiempo límite (timeout) o un rank no se detiene",
    "the controller to write its connection file": "el archivo de conexión del controlador",
    "{count} ranks to join the process group and register":
        "que {count} ranks se unieran al grupo de procesos y se registraran",
    "the controller": "el controlador",
    "the torchrun agent": "el agente de torchrun",
    "{who} exited with code {code} while waiting for {what}; the end of its log:":
        "{who} terminó con el código {code} mientras se esperaba {what}; el final de su registro:",
    "timed out after {timeout:g} s waiting for {what}; the end of torchrun's log:":
        "se agotó el tiempo límite (timeout) de {timeout:g} s esperando {what}; el final del registro de torchrun:",
    "engines reported ranks {got}, expected {expected}": "los engines dijeron ser los ranks {got}; se esperaban {expected}",
    "    (no log)": "    (sin registro)",
    "no live ranks running": "no hay ranks en vivo en marcha",
    "no live ranks are running: start them with `%ranks start 2` (or `%ranks restart` after a stop)":
        "no hay ranks en vivo en marcha: arránquelos con `%ranks start 2` (o con `%ranks restart` después de un stop)",
    "no rank {rank}: the group has ranks {ranks}": "no existe el rank {rank}: el grupo tiene los ranks {ranks}",
    "cell line {line}": "la línea {line} de la celda",
    "line {line} of an earlier cell": "la línea {line} de una celda anterior",
    "at {place}": "en {place}",
    " (called at cell line {line}{source})": " (llamado en la línea {line} de la celda{source})",
    "not in a cell": "fuera de una celda",

    # ddp_lessons.runtime.progress: live progress bars and their text lines (run_torchrun(progress=True), lesson 11)
    "waiting for the first step": "esperando el primer paso",
    "samples/s": "muestras/s",
    "steps/s": "pasos/s",
    "{speed:,.0f} {unit}": "{speed:,.0f} {unit}",
    "step {step}/{total}, {speed}": "paso {step}/{total}, {speed}",
    "[progress] rank {rank}: {progress}": "[progreso] rank {rank}: {progress}",
    "[progress] rank {rank} done: {progress}": "[progreso] rank {rank} terminado: {progress}",
    "[progress] rank {rank} stopped: {progress}": "[progreso] rank {rank} detenido: {progress}",
    "[progress] display stopped: {error!r}": "[progreso] la visualización se detuvo: {error!r}",

    # ddp_lessons.accelerate_launch (lesson 14)
    "accelerate launch did not finish within {timeout:g} s and was killed (all {count} processes)":
        "accelerate launch no terminó dentro del tiempo límite (timeout) de {timeout:g} s y se detuvo (sus {count} "
        "procesos)",
    "accelerate launch exited with code {code}{error};": "accelerate launch terminó con el código {code}{error};",
    "the end of its output:": "el final de su salida:",

    # ddp_lessons.tooling.doctor: `python -m ddp_lessons doctor` (make doctor)
    "CUDA_VISIBLE_DEVICES={hidden!r} hides every GPU; unset it": "CUDA_VISIBLE_DEVICES={hidden!r} oculta todas las GPU; elimínela",
    "check `nvidia-smi` and the NVIDIA driver; in a container, start it with GPU access (docker run --gpus all, with "
    "the NVIDIA container toolkit); check CUDA_VISIBLE_DEVICES":
        "compruebe `nvidia-smi` y el driver de NVIDIA; en un contenedor, arránquelo con acceso a las GPU (`docker run "
        "--gpus all`, con el NVIDIA container toolkit); compruebe CUDA_VISIBLE_DEVICES",
    "this torch is a CUDA {cuda} build but sees no GPU: {hint}":
        "este torch está compilado con CUDA {cuda}, pero no ve ninguna GPU: {hint}",
    "GPU hint: {hint}": "pista sobre la GPU: {hint}",
    "course choice for one rank per GPU ({nproc} local ranks): {backend} on {devices} ({reason})":
        "elección del curso con un rank por GPU ({nproc} ranks locales): {backend} en {devices} ({reason})",
    "smoke test, one rank per GPU: PASSED ({nproc}-rank all_reduce with {backend}, {seconds} s)":
        "prueba rápida, un rank por GPU: SUPERADA (all_reduce de {nproc} ranks con {backend}, {seconds} s)",
    "smoke test, one rank per GPU: FAILED (NCCL peer-to-peer or a small /dev/shm are common causes in containers: "
    "rerun with NCCL_DEBUG=INFO)":
        "prueba rápida, un rank por GPU: FALLIDA (en contenedores, las causas habituales son la comunicación punto a "
        "punto de NCCL o un /dev/shm pequeño: vuelva a ejecutarla con NCCL_DEBUG=INFO)",
    "python {python}, torch {torch} (CUDA build: {cuda})": "python {python}, torch {torch} (compilado con CUDA: {cuda})",
    "none": "ninguna",
    "CPU cores available: {cores}": "núcleos de CPU disponibles: {cores}",
    "GPUs: {gpus}": "GPU: {gpus}",
    "backends: {backends}": "backends: {backends}",
    "yes": "sí",
    "no": "no",
    "course choice for {nproc} local ranks: {backend} on {device}, {threads} thread(s) per rank ({reason})":
        "elección del curso para {nproc} ranks locales: {backend} en {device}, {threads} hilo(s) por rank ({reason})",
    "stacks of hung ranks: {tool} works": "pilas de los ranks bloqueados: {tool} funciona",
    "stacks of hung ranks: cannot be captured here": "pilas de los ranks bloqueados: no se pueden tomar aquí",
    "memory": "memoria",
    "processes": "procesos",
    "disk": "disco",
    "output": "salida",
    "grading limits here: {limits}": "límites de la evaluación aquí: {limits}",
    "{kind} by {how}": "{kind} con {how}",
    " (no cgroup: {why})": " (sin cgroup: {why})",
    "smoke test: PASSED ({nproc}-rank all_reduce with {backend}, {seconds} s including torchrun start-up)":
        "prueba rápida: SUPERADA (all_reduce de {nproc} ranks con {backend}, {seconds} s contando el arranque de "
        "torchrun)",
    "smoke test: FAILED": "prueba rápida: FALLIDA",
    "{name} {have} installed, {constraints} pins {wanted}": "{name} {have} instalado, {constraints} fija {wanted}",
    "missing": "ausente",
    "{problem}: this environment is not the pinned test environment; remove it (rm -rf .venv) and run make test "
    "again, which reinstalls the pinned versions":
        "{problem}: este entorno no es el entorno de pruebas fijado; bórrelo (rm -rf .venv) y vuelva a ejecutar make "
        "test, que reinstala las versiones fijadas",

    # ddp_lessons.tooling.course: `make course` / `make course-es` and `course --store`
    "cell timed out after {timeout} s": "una celda superó el tiempo límite (timeout) de {timeout} s",
    "kernel died: {error}": "el kernel murió: {error}",
    "seconds": "segundos",
    "status": "estado",
    "{ok} ok, {failed} failed": "{ok} bien, {failed} con fallos",
    "no lessons (NN_*.ipynb) found in {folder}": "no hay lecciones (NN_*.ipynb) en {folder}",
    # ddp_lessons.tooling.exercises: `make-exercises`
    "run `python -m ddp_lessons make-exercises` to regenerate":
        "ejecute `python -m ddp_lessons make-exercises` para regenerarlos",
    "error: {error}": "error: {error}",
    "wrote {path}": "se escribió {path}",
    "warning: {path} has no solution in {solutions}; delete it if it is retired":
        "aviso: {path} no tiene solución en {solutions}; bórrelo si ya no se usa",
    "{count} exercise(s) updated from {solutions}": "{count} ejercicio(s) actualizado(s) a partir de {solutions}",
    "{path}: missing": "{path}: no existe",
    "{path}: differs from its solution": "{path}: no coincide con su solución",
    "{path}: has no solution in {solutions}": "{path}: no tiene solución en {solutions}",

    # ddp_lessons.bench and base.scaling_results: `python -m ddp_lessons bench`, lesson 9's table and documents
    "experiment": "experimento",
    "ms/step": "ms/paso",
    "IQR ms": "RIC ms",
    "effic.": "efic.",
    "allred/step": "allred/paso",
    "{cpu}, {cores} cores": "{cpu}, {cores} núcleos",
    "this machine": "esta máquina",
    "measured by ddp_lessons.bench on {hardware} ({backend} on {device}, torch {torch}), {created}":
        "medido por ddp_lessons.bench en {hardware} ({backend} en {device}, torch {torch}), {created}",
    "saved {path}": "guardado en {path}",
    "ranks computed on the CPU with more threads than cores":
        "los ranks calcularon en la CPU con más hilos que núcleos",
    "ranks computed on {device}: their CPU threads only feed the GPU":
        "los ranks calcularon en {device}: sus hilos de CPU solo alimentan la GPU",
    "every rank already had all the cores' threads: nothing to oversubscribe":
        "cada rank ya tenía los hilos de todos los núcleos: no hay nada que sobresuscribir",

    # ddp_lessons.comm_results, tooling.comm_bench and tooling.bench_live: lesson 16, `bench-comm`, `bench-live`
    "25 MB (default)": "25 MB (por defecto)",
    "{mb:g} MB": "{mb:g} MB",
    "all-reduce {predicted:.1f} ms predicted / {flight:.1f} ms in flight ({ratio:.2f}); ":
        "all-reduce {predicted:.1f} ms predichos / {flight:.1f} ms en curso ({ratio:.2f}); ",
    "{model}, bucket_cap_mb {cap}, {count} bucket(s): {flight}exposed {exposed:.1f} ms predicted / {measured:.1f} "
    "ms measured ({exposed_ratio}); step {step:.1f} / {step_measured:.1f} ms ({step_ratio:.2f})":
        "{model}, bucket_cap_mb {cap}, {count} bucket(s): {flight}expuesto {exposed:.1f} ms predichos / "
        "{measured:.1f} ms medidos ({exposed_ratio}); paso {step:.1f} / {step_measured:.1f} ms ({step_ratio:.2f})",
    "n/a: nothing measured": "n/d: no se midió nada",
    "model": "modelo",
    "bucket cap": "tope de bucket",
    "comm pred": "com. pred",
    "in flight": "en curso",
    "exposed pred": "expuesto pred",
    "exposed meas": "expuesto med",
    "step pred": "paso pred",
    "step meas": "paso med",
    "ratio": "razón",
    "time = {alpha:.3f} ms + moved bytes / {gbs:.2f} GB/s; knee at {knee:.0f} KB on {world} ranks; largest residual "
    "{worst:+.0%}":
        "tiempo = {alpha:.3f} ms + bytes movidos / {gbs:.2f} GB/s; codo en {knee:.0f} KB con {world} ranks; mayor "
        "residuo {worst:+.0%}",
    "{cpu}, {cores} cores, {backend} on {device}, {world} ranks x {threads} thread(s), torch {torch}; load average "
    "{before} before, {after} after":
        "{cpu}, {cores} núcleos, {backend} en {device}, {world} ranks x {threads} hilo(s), torch {torch}; carga media "
        "{before} antes, {after} después",
    "all-reduce sweep: {fit}": "barrido de all-reduce: {fit}",
    "predictions use beta from messages of at least 1 MiB: bus bandwidth {gbs:.2f} GB/s":
        "las predicciones usan la beta de los mensajes de al menos 1 MiB: ancho de banda de bus {gbs:.2f} GB/s",
    "unknown": "desconocida",
    "live ranks on {nproc} ranks, {cores} CPU core(s); load average {before:.2f} before, {after:.2f} after":
        "ranks en vivo con {nproc} ranks, {cores} núcleo(s) de CPU; carga media {before:.2f} antes, {after:.2f} después",
    "  start the live group (torchrun + engines): {seconds:7.2f} s (once)":
        "  arrancar el grupo en vivo (torchrun + engines): {seconds:7.2f} s (una vez)",
    "  trivial %%ranks cell, median of {count:>3}: {seconds:7.3f} s  (goal <= 0.5 s)":
        "  celda %%ranks trivial, mediana de {count:>3}: {seconds:7.3f} s  (objetivo <= 0,5 s)",
    "  1 MB all_reduce cell, median of {count:>3}: {seconds:7.3f} s  (goal <= 1 s)":
        "  celda con un all_reduce de 1 MB, mediana de {count:>3}: {seconds:7.3f} s  (objetivo <= 1 s)",
    "  same all_reduce as a fresh run_torchrun, median of {count}: {seconds:7.2f} s":
        "  el mismo all_reduce con un run_torchrun nuevo, mediana de {count}: {seconds:7.2f} s",
    "  fresh launch / live cell: {ratio:7.0f} x": "  lanzamiento nuevo / celda en vivo: {ratio:7.0f} x",

    # lesson helpers: ddp_lessons.traffic (lesson 1), .sharding (lesson 15), .comm_model (lesson 16), .records
    "scatter inputs": "reparto de las entradas",
    "replicate weights": "réplica de los pesos",
    "gather outputs": "recogida de las salidas",
    "scatter output gradients": "reparto de los gradientes de las salidas",
    "sum replica gradients": "suma de los gradientes de las réplicas",
    "all-reduce gradients (ring)": "all-reduce de los gradientes (anillo)",
    "world_size must be >= 1, got {world_size}": "world_size debe ser >= 1, no {world_size}",
    "{value!r} is not one of {known}": "{value!r} no es ninguno de {known}",
    "torch has no ZeRO-2 of its own; FSDP2 with reshard_after_forward=False is 'fsdp' after the step and holds "
    "`gathered_bytes` during it":
        "torch no tiene un ZeRO-2 propio; FSDP2 con reshard_after_forward=False es 'fsdp' después del paso y "
        "mantiene `gathered_bytes` durante él",
    "a fit needs at least two different message sizes": "un ajuste necesita al menos dos tamaños de mensaje distintos",
    "every time must be positive": "todos los tiempos deben ser positivos",
    "no message of at least {size:g} bytes to fit beta on":
        "no hay ningún mensaje de al menos {size:g} bytes con el que ajustar beta",
    "no records named {name!r} in {directory} (did every rank call records.write with this name?)":
        "no hay registros llamados {name!r} en {directory} (¿llamaron todos los ranks a records.write con ese "
        "nombre?)",

    # ddp_lessons.tracebacks: a failed rank's error and its line in the learner's script (lessons 7 and 10)
    "an exception (see its traceback)": "una excepción (véase su traceback)",
    "(no frame in {file})": "(ningún marco en {file})",

    # ddp_lessons.sampling, .quiz, .checks.metrics (its thread ranks), base.scaling_results: errors a learner meets
    "rank must be in [0, {world_size}), got {rank}": "rank debe estar en [0, {world_size}), no {rank}",
    "rank {rank} visits index {index}, outside the data set [0, {size})":
        "el rank {rank} visita el índice {index}, fuera del conjunto de datos [0, {size})",
    "{choice!r} is not one of the options (use a letter a-{last})":
        "{choice!r} no es ninguna de las opciones (use una letra de la a a la {last})",
    "rank {rank} waited in its collective call number {call}":
        "el rank {rank} se quedó esperando en su llamada colectiva número {call}",
    "the check's thread ranks do not support {op}": "los ranks (hilos) de la comprobación no admiten {op}",
    "{path}: not a {schema} document (schema {found!r})": "{path}: no es un documento {schema} (esquema {found!r})",

    # ddp_lessons.scripts: the course's rank scripts (lessons 9, 14, 16, exercises 10 and 12, doctor)
    "ddp_lessons/scripts has no {name}": "ddp_lessons/scripts no tiene {name}",
    "unknown model {name!r}: choose 'cnn' or 'mlp'": "modelo desconocido {name!r}: elija 'cnn' o 'mlp'",
    "sync={mode}: {ms:.1f} ms/step": "sync={mode}: {ms:.1f} ms/paso",
    "{name}, bucket_cap_mb={cap}: {every:.1f} ms/step, {never:.1f} ms without communication":
        "{name}, bucket_cap_mb={cap}: {every:.1f} ms/paso, {never:.1f} ms sin comunicación",
    "rank 0 killed in its torch.save number {crash_at} (from 0): {how} (injected)":
        "el rank 0 murió en su torch.save número {crash_at} (contando desde 0): {how} (provocado)",
    "in the middle of torch.save to {path}": "en mitad de torch.save en {path}",
    "right after open(..., {mode!r}) on the snapshot": "justo después de open(..., {mode!r}) sobre el snapshot",
    "just before os.{kind} onto the snapshot": "justo antes de os.{kind} sobre el snapshot",
    "at dist.barrier(): the snapshot itself was never written": "en dist.barrier(): el snapshot ni siquiera se escribió",
    "rank {rank} finished {epochs} epochs": "el rank {rank} terminó {epochs} épocas",
    "rank {rank}: step {step} done": "rank {rank}: paso {step} hecho",
    "{backend}; all_reduce sum = {got:g} (expected {expected:g})":
        "{backend}; suma del all_reduce = {got:g} (se esperaba {expected:g})",

    # ddp_lessons.diffs (lessons 7, 12, 14) and .checksums
    "{notebook} has no '%%writefile {path}' cell": "{notebook} no tiene ninguna celda '%%writefile {path}'",
    "{name!r} is a {kind}, not a tensor": "{name!r} es un {kind}, no un tensor",

    # ddp_lessons.journal
    "unknown event {event!r} (one of {events})": "evento desconocido {event!r} (uno de {events})",

    # ddp_lessons.plots.pipeline (lesson 17: each rank's input pipeline)
    "a run needs as many waiting times as computing times, more than {skip}":
        "una ejecución necesita tantos tiempos de espera como de cálculo, más de {skip}",
    "every rank needs a run of the same loader settings, in the same order":
        "cada rank necesita una ejecución de los mismos ajustes del DataLoader, en el mismo orden",
    "num_workers={n}": "num_workers={n}",
    "waiting for data": "esperando datos",
    "computing": "calculando",
    "Where each rank's step goes, per DataLoader setting": "En qué se va el paso de cada rank, por ajuste del DataLoader",

    # ddp_lessons.checks.modern_loop (exercise 17)
    "plain_state_dict returned {kind}, not a state dict": "plain_state_dict devolvió {kind}, no un state dict",
    "return the dictionary of tensors whose keys you fixed (consume_prefix_in_state_dict_if_present changes it in place and returns None)":
        "devuelva el diccionario de tensores cuyas claves corrigió (consume_prefix_in_state_dict_if_present lo modifica en el sitio y devuelve None)",
    "the names are right but the tensors of {keys} changed": "los nombres son correctos, pero los tensores de {keys} cambiaron",
    "keep each tensor as it is: rename the keys only": "deje cada tensor como está: cambie solo el nombre de las claves",
    "plain_state_dict turned all {n} keys of the compiled DDP checkpoint into the network's own (for example {before!r} -> {after!r})":
        "plain_state_dict convirtió las {n} claves del checkpoint del modelo DDP compilado en las de la propia red (por ejemplo {before!r} -> {after!r})",
    "{world} ranks x (1 + {workers} workers) = {processes} processes share {cores} core(s): they take turns, and each rank waits for its data":
        "{world} ranks x (1 + {workers} workers) = {processes} procesos comparten {cores} núcleo(s): se turnan, y cada rank espera sus datos",
    "choose num_workers from the cores each rank has: max(0, cores // world_size - 1)":
        "elija num_workers a partir de los núcleos de cada rank: max(0, cores // world_size - 1)",
    "rank 0 and rank {rank} drew the same augmentations, batch for batch: every rank seeded its data the same way":
        "el rank 0 y el rank {rank} sacaron los mismos aumentos de datos, lote a lote: todos los ranks sembraron sus datos igual",
    "give each rank its own seed for the data: DataLoader(..., generator=torch.Generator().manual_seed(seed + rank)) seeds its workers; with num_workers=0 the rank itself draws, so call torch.manual_seed(seed + rank) once the model is built":
        "dé a cada rank su propia semilla para los datos: DataLoader(..., generator=torch.Generator().manual_seed(seed + rank)) siembra sus workers; con num_workers=0 es el propio rank quien sortea, así que llame a torch.manual_seed(seed + rank) una vez construido el modelo",
    "{world} ranks x (1 + {workers} workers) = {processes} processes on {cores} core(s), and every rank drew its own augmentations":
        "{world} ranks x (1 + {workers} workers) = {processes} procesos en {cores} núcleo(s), y cada rank sacó sus propios aumentos de datos",
    "a plain model would refuse these keys: {keys} still start with a wrapper's prefix":
        "un modelo sin envolver rechazaría estas claves: {keys} todavía empiezan por el prefijo de un envoltorio",
    "remove '_orig_mod.' (torch.compile's) and then 'module.' (DDP's) from the start of every key: torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, prefix), once per prefix":
        "quite '_orig_mod.' (el de torch.compile) y después 'module.' (el de DDP) del principio de cada clave: torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, prefix), una vez por prefijo",
    "the network's key {wanted!r} is missing and {got!r} is not one of its names: a parameter whose own name contains 'module' lost part of it":
        "falta la clave {wanted!r} de la red y {got!r} no es ninguno de sus nombres: un parámetro cuyo propio nombre contiene 'module' perdió parte de él",
    "the network's key {wanted!r} is missing and {got!r} is not one of its names":
        "falta la clave {wanted!r} de la red y {got!r} no es ninguno de sus nombres",
    "remove a prefix only where a key starts with it, and only once: consume_prefix_in_state_dict_if_present or key.removeprefix(prefix), never str.replace, split or a fixed slice":
        "quite un prefijo solo donde una clave empieza por él, y solo una vez: consume_prefix_in_state_dict_if_present o key.removeprefix(prefix), nunca str.replace, split ni un corte de longitud fija",
    "rank {rank}'s batches came from {seen} worker process(es), not the num_workers={workers} it asked for":
        "los lotes del rank {rank} vinieron de {seen} proceso(s) worker, no de los num_workers={workers} que pidió",
    "pass num_workers to the DataLoader you return": "pase num_workers al DataLoader que devuelve",

    # ddp_lessons.i18n.labels: values a lesson keeps, compares and shows (i18n.label); "missing", "unknown",
    # "passed" and "failed" are listed above, with the same words
    "rank 0's": "del rank 0",
    "own": "propios",
    "without barrier": "sin barrera",
    "with barrier": "con barrera",
    "without barrier, rank 1 later": "sin barrera, rank 1 más tarde",
    "new": "nuevos",
    "OLD": "ANTIGUOS",
    "weak": "débil",
    "strong": "fuerte",
    "weak scaling ahead": "gana el escalado débil",
    "strong scaling ahead": "gana el escalado fuerte",
    "about even": "casi empatados",
    "same": "común",
    "per-rank": "por rank",
    "complete": "completo",
    "INCOMPLETE": "INCOMPLETO",
    "partial": "parcial",
    "1 rank x 32": "1 rank x 32",
    "4 ranks x 32, same lr": "4 ranks x 32, mismo lr",
    "4 ranks x 32, lr x4 + warm-up": "4 ranks x 32, lr x4 + calentamiento",
    "2 ranks x 32 x 2 accumulated, lr x4 + warm-up": "2 ranks x 32 x 2 acumulados, lr x4 + calentamiento",
    "4 ranks x 256, lr x32 + warm-up": "4 ranks x 256, lr x32 + calentamiento",
    "4 ranks, same lr": "4 ranks, mismo lr",
    "4 ranks, lr x4": "4 ranks, lr x4",

    # lesson 9's scaling table (scaling_results.format_rows): the sync modes (labels) and two headers; the
    # comments and docstrings of the benchmark's functions it prints (labels, shown by i18n.source)
    "every": "siempre",
    "never": "nunca",
    "last": "al final",
    "sync": "sinc.",
    "speedup": "aceleración",
    "One optimizer step over `accumulate` micro-batches, all-reducing as `sync` says.":
        "Un paso del optimizador sobre `accumulate` microlotes, con los all-reduce que indique `sync`.",
    "Build the plan's model, wrap it in DDP, and time its steps on this rank.":
        "Construye el modelo del plan, lo envuelve en DDP y cronometra sus pasos en este rank.",
    "DDP's default comm hook (divide by the world size, all-reduce SUM), logging the bucket in `watch`.":
        "El comm hook por defecto de DDP (divide entre el world size, all-reduce SUM), que anota el bucket en `watch`.",
    "the bucket's gradients, flattened into one tensor": "los gradientes del bucket, aplanados en un solo tensor",
    "device index == LOCAL_RANK when each rank has its own GPU":
        "índice del dispositivo == LOCAL_RANK cuando cada rank tiene su propia GPU",

    # grading: the instructor's command line (python -m ddp_lessons grade: its lines, errors, the limits line,
    # the SLURM progress, the class report); the gradebook's CSV values and the result files stay English
    "error: {message}": "error: {message}",
    "{text!r} is not a number above zero (or none)": "{text!r} no es un número mayor que cero (ni none)",
    "{folder} is not a folder of student folders": "{folder} no es una carpeta de carpetas de estudiantes",
    "{option} must be at least 1": "{option} debe ser al menos 1",
    "nothing to grade (no student folders in {submissions} or no {pattern} in {solutions})":
        "nada que corregir (no hay carpetas de estudiantes en {submissions} o no hay {pattern} en {solutions})",
    "--resume: {kept} of {total} notebooks already graded in {run}":
        "--resume: {kept} de {total} notebooks ya corregidos en {run}",
    "interrupted: cancelled SLURM job {job} (scancel {job}); {graded} of {total} notebooks are graded and kept in "
    "{run}: run the same command with --resume to grade the rest":
        "interrumpido: se canceló el trabajo de SLURM {job} (scancel {job}); {graded} de {total} notebooks están "
        "corregidos y se conservan en {run}: ejecute el mismo comando con --resume para corregir el resto",
    "interrupted: {graded} of {total} notebooks are graded and kept in {run}: run the same command with --resume "
    "to grade the rest":
        "interrumpido: {graded} de {total} notebooks están corregidos y se conservan en {run}: ejecute el mismo "
        "comando con --resume para corregir el resto",
    "no result in {run}": "ningún resultado en {run}",
    "NOT GRADED ({count} notebooks, no points given; grade them with --resume):":
        "SIN CORREGIR ({count} notebooks, sin puntos; corríjalos con --resume):",
    "not graded: {why}": "sin corregir: {why}",
    "gradebook: {gradebook}\none row per student: {wide}\nfor an LMS import: {lms}\nclass report: {report} "
    "(figure {figure})":
        "registro de notas: {gradebook}\nuna fila por estudiante: {wide}\npara importar en un LMS: {lms}\n"
        "informe de la clase: {report} (figura {figure})",
    "feedback: {count} files in {folder}": "informes para los estudiantes: {count} archivos en {folder}",
    "Gradescope results: {count} files in {folder}": "resultados para Gradescope: {count} archivos en {folder}",
    " (none for {students}: not every exercise graded)": " (ninguno para {students}: no se corrigió cada ejercicio)",
    "student": "estudiante",
    "graded": "corregido",
    "not submitted": "no entregado",
    "unreadable": "ilegible",
    "timed out": "tiempo agotado",
    "crashed": "caída del kernel",
    "did not run": "no se ejecutó",
    "over a limit": "por encima de un límite",
    "not graded": "sin corregir",
    "--resume: {run} holds a run graded with other settings ({differs}); grade again without --resume, or with "
    "the same options":
        "--resume: {run} contiene una corrección hecha con otras opciones ({differs}); corrija de nuevo sin "
        "--resume, o con las mismas opciones",
    "{path}: the first line must be '{title} <what it checks>'":
        "{path}: la primera línea debe ser '{title} <lo que comprueba>'",
    "{path}: one of the lines after the title must be '# points: N' (N > 0)":
        "{path}: una de las líneas que siguen al título debe ser '# points: N' (N > 0)",
    "{path}: name it with letters, digits, '-' and '_' only (at most 55)":
        "{path}: póngale un nombre solo con letras, dígitos, '-' y '_' (55 como mucho)",
    "--hidden {folder}: not a folder": "--hidden {folder}: no es una carpeta",
    "--hidden {folder}: keep hidden checks outside {place} (students see it)":
        "--hidden {folder}: guarde las comprobaciones ocultas fuera de {place} (los estudiantes la ven)",
    "unknown limit {kind!r}: one of {kinds}": "límite desconocido {kind!r}: uno de {kinds}",
    "{text!r} is not a size: write e.g. 4G, 300M, 512K or none":
        "{text!r} no es un tamaño: escriba, p. ej., 4G, 300M, 512K o none",
    "{text!r}: a limit must be above zero (or none)": "{text!r}: un límite debe ser mayor que cero (o none)",
    "memory limit": "límite de memoria",
    "a watchdog summing its processes' memory (PSS) every {poll:g} s":
        "un watchdog que suma la memoria (PSS) de sus procesos cada {poll:g} s",
    "a watchdog counting its processes and threads every {poll:g} s":
        "un watchdog que cuenta sus procesos e hilos cada {poll:g} s",
    "a watch on its scratch folder, RLIMIT_FSIZE on any one file":
        "una vigilancia de su carpeta temporal, RLIMIT_FSIZE en cada archivo",
    ", TMPDIR inside the scratch folder": ", TMPDIR dentro de la carpeta temporal",
    ", /tmp and /dev/shm as tmpfs of that size": ", /tmp y /dev/shm como tmpfs de ese tamaño",
    ", but /tmp NOT capped: this bwrap has no --size": ", pero /tmp SIN límite: este bwrap no tiene --size",
    "the grader counting what cells and processes print": "el corrector cuenta lo que imprimen las celdas y los procesos",
    "{kind} UNLIMITED ({option} none)": "{kind} SIN LÍMITE ({option} none)",
    "{count} processes+threads": "{count} procesos+hilos",
    "limits per notebook: {limits}, cell {cell:g} s, notebook {notebook:g} s":
        "límites por notebook: {limits}, celda {cell:g} s, notebook {notebook:g} s",
    "; no cgroup here ({why}): the watchdog stops memory and processes within {poll:g} s of going over, so a fast "
    "enough allocation can overshoot":
        "; aquí no hay cgroup ({why}): el watchdog detiene la memoria y los procesos como mucho {poll:g} s después de "
        "superar el límite, así que una asignación lo bastante rápida puede pasarse",
    "peak {memory} memory, {tasks} processes+threads, {disk} disk, {output} output":
        "máximo: {memory} de memoria, {tasks} procesos+hilos, {disk} de disco, {output} de salida",
    "warning: {message}": "aviso: {message}",
    "could not create a cgroup for a grading job ({error}); memory and processes of such jobs are bounded by the "
    "watchdog":
        "no se pudo crear un cgroup para un trabajo de corrección ({error}); la memoria y los procesos de esos "
        "trabajos los limita el watchdog",
    "exit code {code}": "código de salida {code}",
    "bubblewrap (bwrap) is not installed: {hint}": "bubblewrap (bwrap) no está instalado: {hint}",
    "bwrap did not run: {error}": "bwrap no se ejecutó: {error}",
    "bwrap cannot create its namespaces here: {said}": "bwrap no puede crear aquí sus namespaces: {said}",
    "--sandbox {mode!r}: choose one of {modes}": "--sandbox {mode!r}: elija uno de {modes}",
    "warning: grading WITHOUT a sandbox (students' code runs with your permissions): {reason}":
        "aviso: se corrige SIN sandbox (el código de los estudiantes se ejecuta con sus permisos): {reason}",
    "a process cannot join it: {said}": "un proceso no puede unirse a él: {said}",
    "cgroup v2 at {home} is not writable with the memory and pids controllers ({error})":
        "no se puede escribir en el cgroup v2 de {home} con los controladores memory y pids ({error})",
    "cgroup v1 {controllers} is not writable ({error})": "no se puede escribir en el cgroup v1 {controllers} ({error})",
    "no cgroup v2 and no cgroup v1 {controllers} hierarchy is mounted":
        "no hay montado ningún cgroup v2 ni ninguna jerarquía {controllers} de cgroup v1",
    "systemd-run is not installed": "systemd-run no está instalado",
    "systemd is not running here": "systemd no se está ejecutando aquí",
    "systemd-run did not run: {error}": "systemd-run no se ejecutó: {error}",
    "systemd-run --scope failed: {said}": "systemd-run --scope falló: {said}",
    "systemd-run --scope gave no cgroup: {said}": "systemd-run --scope no dio ningún cgroup: {said}",
    "systemd-run --scope did not apply the limits (memory.max {memory}, pids.max {pids}: are the memory and pids "
    "controllers delegated?)":
        "systemd-run --scope no aplicó los límites (memory.max {memory}, pids.max {pids}: ¿están delegados los "
        "controladores memory y pids?)",
    "no memory or process limit asked for": "no se pidió ningún límite de memoria ni de procesos",
    "cgroups exist only on Linux": "los cgroups solo existen en Linux",
    "ran past its time limit": "superó su tiempo límite",
    "was preempted": "fue desalojada (preemption)",
    "lost its node": "perdió su nodo",
    "ran out of the memory it asked for": "se quedó sin la memoria que pidió",
    "was cancelled": "fue cancelada",
    "no output": "sin salida",
    "ended without a result for some of its notebooks: {last}":
        "terminó sin un resultado para algunos de sus notebooks: {last}",
    "ended without finishing: {last}": "terminó sin acabar: {last}",
    "its SLURM task failed twice (last: {why})": "su tarea de SLURM falló dos veces (la última: {why})",
    "sbatch is not on PATH: --slurm submits from a machine with SLURM's commands (a cluster's login node)":
        "sbatch no está en el PATH: --slurm envía desde una máquina con los comandos de SLURM (el nodo de acceso "
        "de un clúster)",
    "sbatch refused the job: {said}\n(the command: {command})": "sbatch rechazó el trabajo: {said}\n(el comando: {command})",
    "submitted SLURM job {job}: {tasks} task(s) of up to {size} notebook(s)":
        "enviado el trabajo de SLURM {job}: {tasks} tarea(s) de hasta {size} notebook(s)",
    " (round {round}: tasks that failed, once more)": " (ronda {round}: las tareas que fallaron, una vez más)",
    "; logs in {folder}": "; registros en {folder}",
    "SLURM job {job}: squeue did not answer, asking again": "trabajo de SLURM {job}: squeue no respondió, se vuelve a preguntar",
    "SLURM job {job}: {pending} pending, {running} running, {done} done, {failed} failed of {tasks} task(s); "
    "{graded}/{total} notebooks graded":
        "trabajo de SLURM {job}: {pending} en espera, {running} en ejecución, {done} terminadas, {failed} fallidas de "
        "{tasks} tarea(s); {graded}/{total} notebooks corregidos",
    "the partition runs {slots} task(s) of {cpus} CPUs at once":
        "la cola (--partition) ejecuta {slots} tarea(s) de {cpus} CPU a la vez",
    ", {minutes} minutes each at most": ", {minutes} minutos cada una como mucho",
    ": {notebooks} notebook(s) in {tasks} task(s) (--per-task N to choose)":
        ": {notebooks} notebook(s) en {tasks} tarea(s) (--per-task N para elegir)",
    "task {index} of round {round} {why}: {count} notebook(s) not graded":
        "la tarea {index} de la ronda {round} {why}: {count} notebook(s) sin corregir",
    "task {index} of round {round} on {host}: {todo} of {size} notebook(s) to grade, {at_once} at once":
        "tarea {index} de la ronda {round} en {host}: {todo} de {size} notebook(s) por corregir, {at_once} a la vez",
    "Class report: {count} students": "Informe de la clase: {count} estudiantes",
    "{students} students, {exercises} exercises.": "{students} estudiantes, {exercises} ejercicios.",
    "score distribution and pass rate of every check":
        "distribución de las notas y porcentaje de aprobados de cada comprobación",
    "Scores per exercise": "Puntuaciones por ejercicio",
    "exercise": "ejercicio",
    "max": "máx.",
    "mean": "media",
    "min": "mín.",
    "max scored": "máx. obtenido",
    "Checks, least passed first": "Comprobaciones, las menos superadas primero",
    "Hidden checks are marked (hidden). *Most frequent hint*: what the students who failed the check itself (not a "
    "notebook that was not submitted or stopped before it) read most often, and how many.":
        "Las comprobaciones ocultas llevan la marca (oculta). *Pista más frecuente*: lo que leyeron más a menudo los "
        "estudiantes que no superaron la comprobación misma (no un notebook sin entregar o detenido antes de ella), "
        "y cuántos.",
    "(hidden) {title}": "(oculta) {title}",
    "check": "comprobación",
    "pass rate": "porcentaje de aprobados",
    "most frequent hint": "pista más frecuente",
    "Quick-check questions: first-try accuracy": "Preguntas de comprobación rápida: aciertos al primer intento",
    "From the progress files ({file}) {count} students handed in; lowest first.":
        "De los archivos de progreso ({file}) que entregaron {count} estudiantes; los más bajos primero.",
    "question": "pregunta",
    "right at the first try": "correctas al primer intento",
    "accuracy": "acierto",
    "question text": "texto de la pregunta",
    # grading: why a check or an exercise earned nothing, in a student's feedback (grading.feedback.REASONS)
    "the notebook ran past its {seconds} s limit and was stopped":
        "el notebook superó su tiempo límite de {seconds} s y se detuvo",
    "the notebook {what} (the grader's limit)": "el notebook {what} (un límite del corrector)",
    "{what} (the grader's limit)": "{what} (un límite del corrector)",
    "pytest stopped before running a cell: {line}": "pytest se detuvo antes de ejecutar ninguna celda: {line}",
    "unreadable notebook: {error}": "notebook ilegible: {error}",
    "not scored: {void}": "sin puntuar: {void}",
    "{status}: cell {cell}: {detail}": "{status}: celda {cell}: {detail}",
    "cell {cell} {what}": "celda {cell}: {what}",
    "missing from the notebook": "falta en el notebook",
}
